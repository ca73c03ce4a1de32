(function () {
  "use strict";
  // typed_elicit app view. Speaks the MCP Apps View<->Host bridge (JSON-RPC over postMessage):
  //   released (ext-apps 2.0.4): ui/initialize, ui/notifications/initialized,
  //     ui/notifications/size-changed, ui/resource-teardown;
  //   follows ext-apps PR 733 @ SEP-3118 2f3669e5 (typed_elicit._wire.draft): appCapabilities
  //     {elicitation: {}}, hostCapabilities.elicitation, and the host's forwarded
  //     "elicitation/create" request, answered with the standard ElicitResult.
  // It never calls a tool, never retries, and sends nothing but these messages.
  var data = JSON.parse(document.getElementById("te-data").textContent);
  var languages = data.languages;
  var locale = languages.fixed || languages["default"];
  var spoken = languages.offered[locale];
  var words = spoken.words;
  var form = document.getElementById("te-form");
  var fields = document.getElementById("te-fields");
  var nextId = 1;
  var pending = {};
  var question = null; // the id of the elicitation/create request being answered
  var answered = false;
  var params = null;

  function send(message) {
    message.jsonrpc = "2.0";
    window.parent.postMessage(message, "*");
  }
  function request(method, body) {
    var id = nextId++;
    send({ id: id, method: method, params: body });
    return new Promise(function (resolve, reject) { pending[id] = [resolve, reject]; });
  }
  function fail(id, code, message) { send({ id: id, error: { code: code, message: message } }); }
  // --- the language: the server's fixed one, else the host's (hostContext.locale), else the default ---

  function nearest(tag) { // Languages.choose / best_match: the tag, its more general tags, its language
    if (typeof tag !== "string" || tag.length > 35 || !/^[A-Za-z]{1,8}([-_][A-Za-z0-9]{1,8})*$/.test(tag)) return null;
    var parts = tag.replace(/_/g, "-").toLowerCase().split("-");
    var tags = Object.keys(languages.offered);
    for (var end = parts.length; end > 0; end--) {
      var want = parts.slice(0, end).join("-");
      var hit = tags.filter(function (t) { return t.toLowerCase() === want; })[0];
      if (hit) return hit;
    }
    return tags.filter(function (t) { return t.split("-")[0].toLowerCase() === parts[0]; })[0] || null;
  }
  function textOf(node, text) { // a label's own text, leaving its required mark and its input
    var own = Array.prototype.filter.call(node.childNodes, function (n) { return n.nodeType === 3 && n.data.trim(); })[0];
    if (own) own.data = own.nextSibling ? text + " " : text; else node.prepend(text);
  }
  function speak(tag) {
    locale = languages.fixed || nearest(tag) || languages["default"];
    spoken = languages.offered[locale];
    words = spoken.words;
    document.documentElement.lang = locale;
    document.documentElement.dir = spoken.dir;
    Object.keys(spoken.fields).forEach(function (id) {
      var texts = spoken.fields[id];
      var box = document.getElementById(id);
      if (!box) return;
      var label = box.tagName === "FIELDSET" ? box.querySelector("legend") : fields.querySelector("label[for=\"" + id + "\"]");
      if (label) textOf(label.querySelector("bdi") || label, texts[0]);
      [["-desc", texts[1]], ["-hint", texts[2]]].forEach(function (pair) {
        var node = document.getElementById(id + pair[0]);
        if (node && pair[1]) node.textContent = pair[1];
      });
    });
    fields.querySelectorAll("select option[value=\"\"]").forEach(function (o) {
      o.textContent = o.parentNode.required ? words.choose : words.none;
    });
    fields.querySelectorAll("input[type=search]").forEach(function (n) {
      n.placeholder = words.search;
      n.setAttribute("aria-label", words.search);
    });
    document.getElementById("te-submit").textContent = words.submit;
    document.getElementById("te-decline").textContent = words.decline;
    document.getElementById("te-cancel").textContent = words.cancel;
    var brand = document.querySelector("header .brand");
    if (brand && spoken.title) brand.textContent = spoken.title;
    if (params === null) document.getElementById("te-message").textContent = spoken.message;
    document.title = spoken.title || document.getElementById("te-message").textContent;
  }
  function number(n) { // as the language writes it (Words.number): 1,234.5 / 1.234,5
    var text = String(n);
    if (!/^-?\d+(\.\d+)?$/.test(text)) return text;
    var parts = text.split(".");
    var whole = Math.abs(Number(parts[0])) < 1000 ? parts[0] : parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, "\u0000");
    return whole.split("\u0000").join(words.group_sign) + (parts.length > 1 ? words.decimal_sign + parts[1] : "");
  }
  function say(key, limit) {
    var text = words[key];
    if (text && typeof text === "object") { // a plural message: its form for the limit
      var category = "other";
      try { category = new Intl.PluralRules(locale).select(Number(limit)); } catch (e) { category = "other"; }
      text = text[category] || text.other || text[Object.keys(text).pop()];
    }
    return limit === undefined ? String(text) : String(text).split("{limit}").join(number(limit));
  }
  function status(text) {
    var node = document.getElementById("te-status");
    node.textContent = text;
    node.hidden = !text;
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var m = event.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) {
      var waiting = pending[m.id];
      if (waiting) {
        delete pending[m.id];
        if (m.error) waiting[1](m.error); else waiting[0](m.result);
      }
      return;
    }
    if (m.id === undefined) { // notifications: a new host language is the only one the view heeds
      if (m.method === "ui/notifications/host-context-changed" && m.params && m.params.locale) speak(m.params.locale);
      return;
    }
    if (m.method === data.elicit) return elicit(m.id, m.params);
    if (m.method === "ui/resource-teardown") return send({ id: m.id, result: {} });
    fail(m.id, -32601, "Method not found: " + m.method);
  });

  // --- the question ---------------------------------------------------------------------

  function optionsOf(prop) {
    var source = prop.type === "array" ? (prop.items || {}) : prop;
    var list = source.oneOf || source.anyOf;
    if (Array.isArray(list)) {
      return list.map(function (o) { return { value: String(o["const"]), title: String(o.title || o["const"]) }; });
    }
    if (Array.isArray(source["enum"])) {
      return source["enum"].map(function (v, i) {
        var names = prop.enumNames || [];
        return { value: String(v), title: String(names[i] === undefined ? v : names[i]) };
      });
    }
    return null;
  }
  function boxOf(name) { return fields.querySelector("[name=\"" + CSS.escape(name) + "\"]"); }
  function fieldOf(name) { var box = boxOf(name); return box && box.closest(".field"); }

  function setOptions(name, prop, required) {
    var options = optionsOf(prop);
    var box = boxOf(name);
    if (prop.type === "array") {
      var set = box.closest("fieldset");
      var chosen = Array.isArray(prop["default"]) ? prop["default"].map(String) : [];
      set.querySelectorAll("label.check").forEach(function (n) { n.remove(); });
      var holder = document.createElement("div");
      holder.className = "options";
      options.forEach(function (o, i) {
        var label = document.createElement("label");
        label.className = "check";
        var input = document.createElement("input");
        input.type = "checkbox";
        input.id = set.id + "-" + i;
        input.name = name;
        input.value = o.value;
        input.checked = chosen.indexOf(o.value) >= 0;
        label.htmlFor = input.id;
        var title = document.createElement("bdi");
        title.textContent = o.title;
        label.append(input, " ", title);
        holder.append(label);
      });
      set.append(holder);
      return holder;
    }
    var wanted = prop["default"] === undefined ? null : String(prop["default"]);
    box.replaceChildren();
    if (!required || wanted === null) {
      var none = document.createElement("option");
      none.value = "";
      none.textContent = required ? words.choose : words.none;
      box.append(none);
    }
    options.forEach(function (o) {
      var option = document.createElement("option");
      option.value = o.value;
      option.textContent = o.title;
      option.selected = o.value === wanted;
      box.append(option);
    });
    return box;
  }

  function searchable(name, target) {
    var search = document.createElement("input");
    search.type = "search";
    search.placeholder = words.search;
    search.setAttribute("aria-label", words.search);
    var list = target.tagName === "SELECT";
    // A list box shows its options itself: no "Choose..." row, and only as tall as its hits.
    function fit(shown) {
      if (list) target.size = Math.max(2, Math.min(8, shown));
    }
    search.addEventListener("input", function () {
      var needle = search.value.trim().toLowerCase();
      var items = list ? target.options : target.querySelectorAll("label.check");
      var shown = 0;
      Array.prototype.forEach.call(items, function (item) {
        var hit = item.value !== "" && (!needle || item.textContent.toLowerCase().indexOf(needle) >= 0);
        item.hidden = !hit;
        if (hit) shown += 1;
      });
      fit(shown);
    });
    if (list) {
      Array.prototype.forEach.call(target.options, function (option) {
        if (option.value === "") option.hidden = true;
      });
      if (target.value === "") target.selectedIndex = -1;
      fit(target.options.length - (target.options.length && target.options[0].value === "" ? 1 : 0));
    }
    target.parentNode.insertBefore(search, target);
  }

  function preview(shown) {
    var node = document.getElementById("te-preview");
    if (!shown) return;
    if (shown.text) {
      var p = document.createElement("p");
      p.textContent = shown.text;
      node.append(p);
    }
    if (Array.isArray(shown.columns) && shown.columns.length) {
      var table = document.createElement("table");
      var head = table.createTHead().insertRow();
      shown.columns.forEach(function (c) { var th = document.createElement("th"); th.textContent = c; head.append(th); });
      var body = table.createTBody();
      (shown.rows || []).forEach(function (row) {
        var tr = body.insertRow();
        row.forEach(function (cell) { tr.insertCell().textContent = cell; });
      });
      node.append(table);
    }
    node.hidden = false;
  }

  function show(p) {
    var schema = p.requestedSchema;
    if (!schema || typeof schema.properties !== "object") throw new Error("no requestedSchema");
    var names = Object.keys(schema.properties);
    var required = schema.required || [];
    var extra = (p._meta && p._meta[data.viewKey]) || {};
    fields.querySelectorAll(".field").forEach(function (node) {
      var named = node.querySelector("[name]");
      if (!named || names.indexOf(named.name) < 0) throw new Error("the view has a field the question lacks");
    });
    names.forEach(function (name) {
      var prop = schema.properties[name];
      var box = boxOf(name);
      if (!box) throw new Error("the question has a field the view lacks");
      var target = optionsOf(prop) ? setOptions(name, prop, required.indexOf(name) >= 0) : null;
      if (target && (extra.search || []).indexOf(name) >= 0) searchable(name, target);
      if (!target && prop["default"] !== undefined) {
        if (box.type === "checkbox") box.checked = prop["default"] === true;
        else box.value = String(prop["default"]);
      }
    });
    var message = String(p.message || "");
    document.getElementById("te-message").textContent = message === data.message ? spoken.message : message;
    preview(extra.preview);
  }

  function elicit(id, p) {
    if (question !== null || answered) return fail(id, -32600, "This view answers one question only");
    if (!p || (p.mode !== undefined && p.mode !== "form")) return fail(id, -32602, "Only a form question can be shown");
    params = p;
    try {
      show(p);
    } catch (error) {
      params = null;
      return fail(id, -32603, "This view cannot show the question: " + error.message);
    }
    question = id;
    fields.disabled = false;
    var first = fields.querySelector("input, select");
    if (first) first.focus();
  }

  // --- checks: the same rules as the server's, read from the question's schema ---------------

  var EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  var DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
  var DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

  function validDate(text) {
    var m = DATE.exec(text);
    if (!m) return false;
    var d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
    return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
  }
  function validUri(text) {
    try { return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && Boolean(new URL(text)); } catch (e) { return false; }
  }

  function read(name, prop, required) {
    var box = boxOf(name);
    var options = optionsOf(prop);
    if (prop.type === "array") {
      var picked = Array.prototype.filter.call(fields.querySelectorAll("input[name=\"" + CSS.escape(name) + "\"]"),
        function (n) { return n.checked; }).map(function (n) { return n.value; });
      if (!picked.length && !required) return [undefined, null];
      if (picked.some(function (v) { return !options.some(function (o) { return o.value === v; }); })) return [undefined, say("choices")];
      if (prop.minItems !== undefined && picked.length < prop.minItems) return [undefined, say(picked.length ? "min_items" : "required", prop.minItems)];
      if (prop.maxItems !== undefined && picked.length > prop.maxItems) return [undefined, say("max_items", prop.maxItems)];
      return [picked, null];
    }
    if (prop.type === "boolean") return [box.checked, null];
    var text = box.value;
    if (prop.type !== "string") text = text.trim();
    if (text === "") return [undefined, required ? say("required") : null];
    if (options) {
      var hit = options.filter(function (o) { return o.value === text; })[0];
      if (!hit) return [undefined, say("choice")];
      return [prop.type === "integer" || prop.type === "number" ? Number(text) : text, null];
    }
    if (prop.type === "integer" || prop.type === "number") {
      var n = Number(text);
      if (!isFinite(n)) return [undefined, say("number")];
      if (prop.type === "integer" && !Number.isInteger(n)) return [undefined, say("integer")];
      if (prop.minimum !== undefined && n < prop.minimum) return [undefined, say("ge", prop.minimum)];
      if (prop.maximum !== undefined && n > prop.maximum) return [undefined, say("le", prop.maximum)];
      return [n, null];
    }
    var length = Array.from(text).length;
    if (prop.minLength !== undefined && length < prop.minLength) return [undefined, say("min_length", prop.minLength)];
    if (prop.maxLength !== undefined && length > prop.maxLength) return [undefined, say("max_length", prop.maxLength)];
    if (prop.format === "email" && !EMAIL.test(text)) return [undefined, say("email")];
    if (prop.format === "uri" && !validUri(text)) return [undefined, say("uri")];
    if (prop.format === "date" && !validDate(text)) return [undefined, say("date")];
    if (prop.format === "date-time" && !(DATE_TIME.test(text) && validDate(text.slice(0, 10)))) return [undefined, say("date_time")];
    return [text, null];
  }

  function mark(name, problem) {
    var node = fieldOf(name);
    var old = node.querySelector("p.error");
    if (old) old.remove();
    node.classList.toggle("invalid", Boolean(problem));
    var box = boxOf(name);
    var set = box.closest("fieldset[id]");
    var owner = set && set !== fields ? set : box;
    var errorId = owner.id + "-error";
    var described = (owner.getAttribute("aria-describedby") || "").split(" ").filter(function (id) {
      return id && id !== errorId;
    });
    if (!problem) {
      box.removeAttribute("aria-invalid");
      if (described.length) owner.setAttribute("aria-describedby", described.join(" "));
      else owner.removeAttribute("aria-describedby");
      return;
    }
    var p = document.createElement("p");
    p.className = "error";
    p.id = errorId;
    p.textContent = problem;
    node.append(p);
    box.setAttribute("aria-invalid", "true");
    owner.setAttribute("aria-describedby", described.concat([errorId]).join(" "));
  }

  function fill(text, values) {
    return String(text).replace(/\{([a-z_]+)\}/g, function (all, name) {
      return values[name] === undefined ? all : String(values[name]);
    });
  }
  function labelOf(name) {
    var node = fieldOf(name);
    var label = node.querySelector("legend") || node.querySelector("label");
    var own = label && (label.querySelector("bdi") || label);
    return own ? Array.prototype.filter.call(own.childNodes, function (n) { return n.nodeType === 3; })
      .map(function (n) { return n.data; }).join("").trim() : name;
  }
  // Every problem at once, above the form: a heading that counts them and a link to each field.
  // It takes the focus (the GOV.UK error summary); each link gives its field the focus.
  function summarize(problems) {
    var node = document.getElementById("te-summary");
    if (!node) { // an author's template from before the summary: the first invalid field takes the focus
      if (problems.length) boxOf(problems[0][0]).focus();
      return;
    }
    node.replaceChildren();
    node.hidden = !problems.length;
    if (!problems.length) return;
    var heading = document.createElement("h2");
    heading.id = "te-summary-title";
    var forms = words.problems;
    var category = "other";
    try { category = new Intl.PluralRules(locale).select(problems.length); } catch (e) { category = "other"; }
    heading.textContent = fill(typeof forms === "object" ? (forms[category] || forms.other) : forms,
      { count: number(problems.length) });
    var list = document.createElement("ul");
    problems.forEach(function (problem) {
      var link = document.createElement("a");
      var box = boxOf(problem[0]);
      var target = box;
      link.href = "#" + target.id;
      link.textContent = fill(words.problem_at, { label: labelOf(problem[0]), problem: problem[1] });
      link.addEventListener("click", function (event) { event.preventDefault(); target.focus(); });
      var item = document.createElement("li");
      item.append(link);
      list.append(item);
    });
    node.append(heading, list);
    node.focus();
  }

  function collect() {
    var schema = params.requestedSchema;
    var required = schema.required || [];
    var content = {};
    var problems = [];
    Object.keys(schema.properties).forEach(function (name) {
      var got = read(name, schema.properties[name], required.indexOf(name) >= 0);
      mark(name, got[1]);
      if (got[1]) problems.push([name, got[1]]);
      if (got[0] !== undefined) content[name] = got[0];
    });
    summarize(problems);
    return problems.length ? null : content;
  }

  function answer(result) {
    if (question === null || answered) return;
    answered = true;
    fields.disabled = true;
    send({ id: question, result: result });
    status(words[result.action === "accept" ? "sent" : result.action === "decline" ? "declined" : "cancelled"]);
  }

  // A host's sandbox usually lacks `allow-forms`, where a submit event never fires: the
  // buttons and the Enter key answer instead.
  function submit() {
    if (question === null || answered) return;
    var content = collect();
    if (content !== null) answer({ action: "accept", content: content });
  }
  form.addEventListener("submit", function (event) { event.preventDefault(); submit(); });
  form.addEventListener("keydown", function (event) {
    var kind = event.target && event.target.type;
    if (event.key === "Enter" && kind !== "checkbox" && event.target.tagName === "INPUT") {
      event.preventDefault();
      submit();
    }
  });
  document.getElementById("te-submit").addEventListener("click", submit);
  document.getElementById("te-decline").addEventListener("click", function () { answer({ action: "decline" }); });
  document.getElementById("te-cancel").addEventListener("click", function () { answer({ action: "cancel" }); });

  // --- the handshake and the size ---------------------------------------------------------

  var lastSize = "";
  function sizeChanged() {
    var el = document.documentElement;
    var size = { width: Math.ceil(el.scrollWidth), height: Math.ceil(el.scrollHeight) };
    var key = size.width + "x" + size.height;
    if (key === lastSize) return;
    lastSize = key;
    send({ method: "ui/notifications/size-changed", params: size });
  }

  request("ui/initialize", {
    protocolVersion: data.protocol,
    appInfo: data.app,
    appCapabilities: { elicitation: {} }
  }).then(function (result) {
    speak(((result && result.hostContext) || {}).locale);
    send({ method: "ui/notifications/initialized", params: {} });
    var host = (result && result.hostCapabilities) || {};
    if (!host.elicitation) status(words.host_cannot_answer);
    sizeChanged();
    if (typeof ResizeObserver === "function") new ResizeObserver(sizeChanged).observe(document.documentElement);
  }, function () {
    status(words.host_unreachable);
  });
})();
