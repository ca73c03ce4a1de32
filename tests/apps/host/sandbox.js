// The sandbox proxy of the test host, served from a SECOND origin (another local port).
//
// ext-apps 2.0.4's host bridge expects this double-iframe layout (spec 2026-01-26, "Sandbox
// proxy"): the host page frames this proxy, the proxy announces itself with
// `ui/notifications/sandbox-proxy-ready`, the host answers with
// `ui/notifications/sandbox-resource-ready` {html, sandbox, csp, permissions}, and the proxy
// renders the HTML in an inner sandboxed iframe and relays every other message both ways.
// Plain script, no bundling: it uses nothing from the package.
(function () {
  "use strict";
  const hostOrigin = new URLSearchParams(location.search).get("host");
  if (!hostOrigin || hostOrigin === location.origin) {
    document.body.textContent = "The sandbox proxy must be framed by a host on another origin.";
    return;
  }
  let inner = null;

  function source(list) {
    return (list || []).filter((d) => /^https?:\/\/[^\s;'"]+$/.test(d)).join(" ");
  }

  // The view's CSP: only inline script and style, data: images, nothing from the network
  // unless the resource's _meta.ui.csp names domains (connectDomains, resourceDomains,
  // frameDomains, baseUriDomains). Forms may not navigate anywhere.
  function policy(csp) {
    csp = csp || {};
    const resources = source(csp.resourceDomains);
    const connect = source(csp.connectDomains) || "'none'";
    const frames = source(csp.frameDomains) || "'none'";
    const base = source(csp.baseUriDomains) || "'none'";
    return [
      "default-src 'none'",
      `script-src 'unsafe-inline' ${resources}`.trim(),
      `style-src 'unsafe-inline' ${resources}`.trim(),
      `img-src data: ${resources}`.trim(),
      `font-src data: ${resources}`.trim(),
      `connect-src ${connect}`,
      `frame-src ${frames}`,
      `base-uri ${base}`,
      "form-action 'none'",
    ].join("; ");
  }

  function withPolicy(html, csp) {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp)}">`;
    const head = /<head(\s[^>]*)?>/i.exec(html);
    if (head) return html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length);
    return meta + html;
  }

  function load(params) {
    if (inner) return; // one view per proxy: the host makes a new proxy for each elicitation
    inner = document.createElement("iframe");
    inner.title = "App";
    // Never allow-same-origin: the view gets an opaque origin, so it reaches nothing of ours.
    inner.setAttribute("sandbox", params.sandbox || "allow-scripts");
    inner.srcdoc = withPolicy(String(params.html || ""), params.csp);
    document.body.append(inner);
  }

  window.addEventListener("message", (event) => {
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return;
      const message = event.data;
      if (message && message.method === "ui/notifications/sandbox-resource-ready") {
        load(message.params || {});
        return;
      }
      if (inner && inner.contentWindow) inner.contentWindow.postMessage(message, "*");
    } else if (inner && event.source === inner.contentWindow) {
      window.parent.postMessage(event.data, hostOrigin);
    }
  });

  window.parent.postMessage(
    { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} },
    hostOrigin,
  );
})();
