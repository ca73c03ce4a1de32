// TypeScript-SDK interop client for typed_elicit servers (tests/peers/servers/interop_server.py).
//
//   node tests/peers/ts_client/client.mjs [--http URL] [--stdio PYTHON SERVER_FILE] [--protocol REV ...]
//
// For each transport given and each protocol revision (default: 2025-11-25 and 2025-06-18), it
// connects with the official TypeScript SDK client (which validates every `elicitation/create`
// it receives against its own zod schemas before our handler runs), runs the scripted
// conversations in scenarios.mjs, checks every requestedSchema strictly (strict.mjs: each
// property is exactly one spec kind, no extra key) and against the expected wire shape, and
// compares each tool result with the expected one. Prints one line per conversation, exits 0
// only if all passed (1 on any failure, 3 on the global watchdog).
//
// The TS SDK always asks for its newest revision (2025-11-25); for 2025-06-18 the client's
// transport rewrites `protocolVersion` in its own `initialize` request, and the server, which
// supports it, answers with 2025-06-18 (the TS SDK accepts that revision).
import { Client, StdioClientTransport, StreamableHTTPClientTransport, types } from './sdk.mjs';
import { checkRequestedSchema } from './strict.mjs';
import { SCENARIOS } from './scenarios.mjs';

const WATCHDOG_MS = Number(process.env.TS_CLIENT_TIMEOUT_MS ?? 120000);
const CALL_TIMEOUT_MS = 20000;
const watchdog = setTimeout(() => {
    console.error(`ts_client: watchdog: not finished after ${WATCHDOG_MS} ms`);
    process.exit(3);
}, WATCHDOG_MS);

function parseArgs(argv) {
    const out = { transports: [], protocols: [] };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--http') out.transports.push({ kind: 'http', url: argv[++i] });
        else if (a === '--stdio') out.transports.push({ kind: 'stdio', python: argv[++i], file: argv[++i] });
        else if (a === '--protocol') out.protocols.push(argv[++i]);
        else if (a === '--only') out.only = argv[++i];
        else throw new Error(`unknown argument ${a}`);
    }
    if (!out.transports.length) throw new Error('give --http URL and/or --stdio PYTHON SERVER_FILE');
    if (!out.protocols.length) out.protocols = ['2025-11-25', '2025-06-18'];
    for (const t of out.transports) {
        if (t.kind === 'http') {
            const host = new URL(t.url).hostname;
            if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`refusing non-loopback URL ${t.url}`);
        }
    }
    return out;
}

function makeTransport(t, protocol) {
    const transport =
        t.kind === 'http'
            ? new StreamableHTTPClientTransport(new URL(t.url))
            : new StdioClientTransport({ command: t.python, args: [t.file], stderr: 'pipe' });
    if (protocol !== types.LATEST_PROTOCOL_VERSION) {
        const send = transport.send.bind(transport);
        transport.send = (message, options) => {
            if (message.method === 'initialize') {
                message = { ...message, params: { ...message.params, protocolVersion: protocol } };
            }
            return send(message, options);
        };
    }
    return transport;
}

function deepEqual(a, b) {
    return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}
function sortKeys(v) {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
    return v;
}

/** Check `actual` has every key/value of `expected` (recursively for plain objects). */
function assertSubset(actual, expected, where) {
    for (const [k, v] of Object.entries(expected)) {
        if (v === undefined) {
            if (actual !== undefined && k in actual) throw new Error(`${where}.${k} should be absent, is ${JSON.stringify(actual[k])}`);
            continue;
        }
        if (actual === undefined || !(k in actual)) throw new Error(`${where}.${k} missing (expected ${JSON.stringify(v)})`);
        if (v && typeof v === 'object' && !Array.isArray(v)) assertSubset(actual[k], v, `${where}.${k}`);
        else if (!deepEqual(actual[k], v)) {
            throw new Error(`${where}.${k} is ${JSON.stringify(actual[k])}, expected ${JSON.stringify(v)}`);
        }
    }
}

function resultJson(result) {
    if (result.structuredContent && typeof result.structuredContent === 'object') {
        const sc = result.structuredContent;
        // MCPServer wraps non-object returns as {"result": ...}
        return 'result' in sc && Object.keys(sc).length === 1 ? sc.result : sc;
    }
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
    try {
        return JSON.parse(text);
    } catch {
        return text;
    }
}

/** One SDK client connection; the elicitation handler follows `state.steps` of the current scenario. */
async function openConnection(t, protocol) {
    const client = new Client(
        { name: 'typed-elicit-ts-interop', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } } },
    );
    const state = { steps: [], failures: [], seen: [] };
    client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
        // Reaching this line means the TS SDK's ElicitRequestSchema accepted the request.
        const params = request.params;
        const step = state.steps.shift();
        try {
            if (!step) throw new Error(`unexpected extra question: ${params.message}`);
            if (params.mode && params.mode !== 'form') throw new Error(`mode ${params.mode}, expected form`);
            if (typeof params.message !== 'string' || !params.message.trim()) throw new Error('empty message');
            const kinds = checkRequestedSchema(params.requestedSchema);
            state.seen.push(...Object.values(kinds));
            const keys = Object.keys(params.requestedSchema.properties).sort();
            const want = Object.keys(step.schema.properties).sort();
            if (!deepEqual(keys, want)) throw new Error(`${step.name}: properties ${keys}, expected ${want}`);
            assertSubset(params.requestedSchema, step.schema, step.name);
            for (const [prop, kind] of Object.entries(step.kinds ?? {})) {
                if (kinds[prop] !== kind) throw new Error(`${step.name}.${prop}: kind ${kinds[prop]}, expected ${kind}`);
            }
            const req = [...(params.requestedSchema.required ?? [])].sort();
            if (step.required && !deepEqual(req, [...step.required].sort())) {
                throw new Error(`${step.name}: required ${req}, expected ${[...step.required].sort()}`);
            }
        } catch (e) {
            state.failures.push(e.message);
            return { action: 'cancel' };
        }
        return step.answer;
    });
    const transport = makeTransport(t, protocol);
    state.stderr = '';
    if (transport.stderr) transport.stderr.on('data', (d) => (state.stderr += d));
    await client.connect(transport);
    return { client, state, close: () => client.close().catch(() => {}) };
}

async function runConversation(conn, protocol, scenario) {
    const { client, state } = conn;
    state.steps = [...scenario.steps(protocol)];
    state.failures = [];
    state.seen = [];
    const failures = state.failures;
    try {
        const result = await client.callTool({ name: scenario.tool, arguments: scenario.arguments ?? {} }, undefined, {
            timeout: CALL_TIMEOUT_MS,
        });
        if (state.steps.length) {
            failures.push(`${state.steps.length} expected question(s) never asked: ${state.steps.map((s) => s.name)}`);
        }
        const expected = scenario.expect(protocol);
        if (expected.isError) {
            if (!result.isError) failures.push(`expected a tool error, got ${JSON.stringify(result.content)}`);
            const text = (result.content ?? []).map((c) => c.text ?? '').join(' ');
            for (const needle of expected.errorMentions ?? []) {
                if (!text.includes(needle)) failures.push(`tool error should mention ${JSON.stringify(needle)}: ${text}`);
            }
        } else {
            if (result.isError) failures.push(`tool error: ${JSON.stringify(result.content)}`);
            else assertSubsetSafe(resultJson(result), expected.result, failures);
        }
    } catch (e) {
        failures.push(`call failed: ${e.message}${state.stderr ? `\n    server stderr: ${state.stderr.slice(-800)}` : ''}`);
    }
    return { failures: [...failures], kinds: [...state.seen] };
}

function assertSubsetSafe(actual, expected, failures) {
    try {
        assertSubset(actual, expected, 'result');
    } catch (e) {
        failures.push(`${e.message}; full result ${JSON.stringify(actual)}`);
    }
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    let failed = 0;
    let total = 0;
    const kindsSeen = new Set();
    for (const t of args.transports) {
        for (const protocol of args.protocols) {
            let conn;
            try {
                conn = await openConnection(t, protocol);
            } catch (e) {
                failed++;
                total++;
                console.log(`FAIL ${t.kind.padEnd(5)} ${protocol} connect: ${e.message}`);
                continue;
            }
            for (const scenario of SCENARIOS) {
                if (args.only && scenario.id !== args.only) continue;
                if (scenario.protocols && !scenario.protocols.includes(protocol)) continue;
                total++;
                const started = Date.now();
                const { failures, kinds } = await runConversation(conn, protocol, scenario);
                kinds.forEach((k) => kindsSeen.add(`${k}`));
                const label = `${t.kind.padEnd(5)} ${protocol} ${scenario.id}`;
                if (failures.length) {
                    failed++;
                    console.log(`FAIL ${label}`);
                    for (const f of failures) console.log(`     - ${f}`);
                } else {
                    console.log(`ok   ${label} (${Date.now() - started} ms)`);
                }
            }
            await conn.close();
        }
    }
    const allKinds = ['boolean', 'string', 'number', 'untitledSingle', 'titledSingle', 'legacyTitled', 'untitledMulti', 'titledMulti'];
    const missing = allKinds.filter((k) => !kindsSeen.has(k));
    console.log(`schema kinds that crossed the TS SDK's validation: ${[...kindsSeen].sort().join(', ')}`);
    if (missing.length && !args.only) {
        failed++;
        console.log(`FAIL spec kinds never exercised: ${missing.join(', ')}`);
    }
    console.log(failed ? `TS INTEROP: ${failed} of ${total} conversations FAILED` : `TS INTEROP: all ${total} conversations passed`);
    clearTimeout(watchdog);
    process.exit(failed ? 1 : 0);
}

main().catch((e) => {
    console.error(`ts_client: ${e.stack ?? e}`);
    process.exit(2);
});
