// The scripted conversations the TS interop client holds with tests/peers/servers/interop_server.py.
//
// Each scenario names a tool, its arguments, the questions the server must ask in order (with
// the wire schema expected for the negotiated revision and the answer the "user" gives), and
// the tool result expected at the end. `schema` is checked as a subset (keys mapped to
// `undefined` must be absent); the property names must match exactly.
const MODERN = (p) => p >= '2025-11-25'; // titled oneOf, multi-select, defaults on every kind

// ---------------------------------------------------------------- deploy_wizard (3 steps)
const target = (p) => ({
    name: 'Target',
    required: ['service', 'environment'],
    kinds: { service: 'string', environment: MODERN(p) ? 'titledSingle' : 'legacyTitled' },
    schema: {
        type: 'object',
        properties: {
            service: { type: 'string', minLength: 1, maxLength: 40, description: 'Service name' },
            environment: MODERN(p)
                ? {
                      type: 'string',
                      oneOf: [
                          { const: 'staging', title: 'Staging' },
                          { const: 'production', title: 'Production' },
                      ],
                      enum: undefined,
                  }
                : { type: 'string', enum: ['staging', 'production'], enumNames: ['Staging', 'Production'], oneOf: undefined },
        },
    },
});
const approval = (p) => ({
    name: 'Approval',
    required: ['ticket'],
    kinds: { ticket: 'string', replicas: 'number' },
    schema: {
        type: 'object',
        properties: {
            ticket: { type: 'string', minLength: 3, maxLength: 20 },
            replicas: { type: 'integer', minimum: 1, maximum: 10, default: MODERN(p) ? 2 : undefined },
        },
    },
});
const stagingOptions = () => ({
    name: 'StagingOptions',
    required: [],
    kinds: { seed_data: 'boolean' },
    schema: { type: 'object', properties: { seed_data: { type: 'boolean', default: true } } },
});
const notify = () => ({
    name: 'Notify',
    required: ['email'],
    kinds: { email: 'string', note: 'string' },
    schema: {
        type: 'object',
        properties: {
            email: { type: 'string', format: 'email' },
            note: { type: 'string', default: undefined },
        },
    },
});
const accept = (content) => ({ action: 'accept', content });

// ---------------------------------------------------------------- all_kinds
const everyKind = (p) => ({
    name: 'EveryKind',
    required: ['text', 'email', 'homepage', 'birthday', 'meeting', 'priority'],
    kinds: {
        text: 'string',
        count: 'number',
        ratio: 'number',
        agree: 'boolean',
        nickname: 'string',
        email: 'string',
        homepage: 'string',
        birthday: 'string',
        meeting: 'string',
        priority: 'number',
        size: 'untitledSingle',
        color: 'untitledSingle',
        plan: MODERN(p) ? 'titledSingle' : 'legacyTitled',
    },
    schema: {
        type: 'object',
        properties: {
            text: { type: 'string', minLength: 2, maxLength: 20, title: 'Text', description: 'Some text' },
            count: { type: 'integer', minimum: 1, maximum: 10, default: MODERN(p) ? 3 : undefined },
            ratio: { type: 'number', minimum: 0, maximum: 1, default: MODERN(p) ? 0.5 : undefined },
            agree: { type: 'boolean', default: false }, // boolean defaults exist on every revision
            nickname: { type: 'string', default: undefined },
            email: { type: 'string', format: 'email' },
            homepage: { type: 'string', format: 'uri' },
            birthday: { type: 'string', format: 'date' },
            meeting: { type: 'string', format: 'date-time' },
            priority: { type: 'integer', minimum: 1, maximum: 5 }, // gt=0, lt=6 -> adjacent bounds
            size: { type: 'string', enum: ['s', 'm', 'l'], default: MODERN(p) ? 'm' : undefined },
            color: { type: 'string', enum: ['red', 'green', 'blue'], default: MODERN(p) ? 'blue' : undefined },
            plan: MODERN(p)
                ? {
                      type: 'string',
                      oneOf: [
                          { const: 'free', title: 'Free plan' },
                          { const: 'pro', title: 'Pro plan' },
                      ],
                      default: 'free',
                  }
                : { type: 'string', enum: ['free', 'pro'], enumNames: ['Free plan', 'Pro plan'], default: undefined },
        },
    },
});
const everyChoice = () => ({
    name: 'EveryChoice',
    required: ['toppings'],
    kinds: { toppings: 'untitledMulti', days: 'titledMulti' },
    schema: {
        type: 'object',
        properties: {
            toppings: {
                type: 'array',
                items: { type: 'string', enum: ['cheese', 'ham', 'olives'] },
                minItems: 1,
                maxItems: 2,
            },
            days: {
                type: 'array',
                items: {
                    anyOf: [
                        { const: 'mon', title: 'Monday' },
                        { const: 'tue', title: 'Tuesday' },
                        { const: 'wed', title: 'Wednesday' },
                    ],
                },
                default: ['mon'],
            },
        },
    },
});

const FULL_ANSWER = {
    text: 'hello',
    count: 7,
    ratio: 0.25,
    agree: true,
    nickname: 'Ada',
    email: 'ada@example.com',
    homepage: 'https://example.com/x',
    birthday: '1990-05-17',
    meeting: '2026-07-28T09:30:00Z',
    priority: 5,
    size: 'l',
    color: 'green',
    plan: 'pro',
};
const REQUIRED_ONLY = {
    text: 'hi',
    email: 'bo@example.com',
    homepage: 'https://example.org/',
    birthday: '2000-01-01',
    meeting: '2026-01-01T00:00:00Z',
    priority: 1,
};
const DEFAULTS_FILLED = { count: 3, ratio: 0.5, agree: false, nickname: null, size: 'm', color: 'blue', plan: 'free' };

// ---------------------------------------------------------------- shaped_pick (issue 13)
const ACCOUNTS = [
    { const: 'acc-1', title: 'Checking' },
    { const: 'acc-2', title: 'Savings' },
];
const shapedPick = () => ({
    name: 'ShapedPick',
    required: ['tags'],
    kinds: { account: 'titledSingle', tags: 'untitledMulti', amount: 'number' },
    schema: {
        type: 'object',
        properties: {
            account: { type: 'string', oneOf: ACCOUNTS, default: 'acc-2' },
            tags: { type: 'array', items: { type: 'string', enum: ['red', 'green', 'blue'] }, minItems: 1, maxItems: 2 },
            amount: { type: 'integer', minimum: 5, default: 40, description: 'Must be a multiple of 5.' },
        },
    },
});
const shapedOne = (p) => ({
    name: 'ShapedOne',
    required: ['account'],
    kinds: { account: MODERN(p) ? 'titledSingle' : 'legacyTitled', confirm: 'boolean' },
    schema: {
        type: 'object',
        properties: {
            account: MODERN(p)
                ? { type: 'string', oneOf: ACCOUNTS, enum: undefined }
                : { type: 'string', enum: ['acc-1', 'acc-2'], enumNames: ['Checking', 'Savings'], oneOf: undefined },
            confirm: { type: 'boolean', default: true },
        },
    },
});

export const SCENARIOS = [
    {
        id: 'protocol',
        tool: 'negotiated_protocol',
        steps: () => [],
        expect: (p) => ({ result: { protocol: p } }),
    },
    {
        id: 'wizard-production',
        tool: 'deploy_wizard',
        steps: (p) => [
            { ...target(p), answer: accept({ service: 'api', environment: 'production' }) },
            { ...approval(p), answer: accept({ ticket: 'CHG-1234', replicas: 3 }) },
            { ...notify(p), answer: accept({ email: 'ops@example.com' }) },
        ],
        expect: () => ({
            result: {
                status: 'deployed',
                service: 'api',
                environment: 'production',
                ticket: 'CHG-1234',
                replicas: 3,
                email: 'ops@example.com',
                note: null,
            },
        }),
    },
    {
        id: 'wizard-staging-branch',
        tool: 'deploy_wizard',
        steps: (p) => [
            { ...target(p), answer: accept({ service: 'web', environment: 'staging' }) },
            { ...stagingOptions(p), answer: accept({ seed_data: false }) },
            { ...notify(p), answer: accept({ email: 'dev@example.com', note: 'after lunch' }) },
        ],
        expect: () => ({
            result: {
                status: 'deployed',
                service: 'web',
                environment: 'staging',
                seed_data: false,
                email: 'dev@example.com',
                note: 'after lunch',
            },
        }),
    },
    {
        id: 'wizard-decline-at-2',
        tool: 'deploy_wizard',
        steps: (p) => [
            { ...target(p), answer: accept({ service: 'api', environment: 'production' }) },
            { ...approval(p), answer: { action: 'decline' } },
        ],
        expect: () => ({ result: { status: 'declined', step: 2 } }),
    },
    {
        id: 'wizard-cancel-at-1',
        tool: 'deploy_wizard',
        steps: (p) => [{ ...target(p), answer: { action: 'cancel' } }],
        expect: () => ({ result: { status: 'cancelled', step: 1 } }),
    },
    {
        id: 'all-kinds',
        tool: 'all_kinds',
        arguments: { multi: true },
        protocols: ['2025-11-25'],
        steps: (p) => [
            { ...everyKind(p), answer: accept(FULL_ANSWER) },
            { ...everyChoice(p), answer: accept({ toppings: ['olives', 'cheese'], days: ['tue', 'mon'] }) },
        ],
        expect: () => ({
            result: {
                status: 'accepted',
                kinds: FULL_ANSWER,
                choices: { toppings: ['cheese', 'olives'], days: ['mon', 'tue'] },
            },
        }),
    },
    {
        id: 'all-kinds-single-step',
        tool: 'all_kinds',
        arguments: { multi: false },
        steps: (p) => [{ ...everyKind(p), answer: accept(FULL_ANSWER) }],
        expect: () => ({ result: { status: 'accepted', kinds: FULL_ANSWER, choices: null } }),
    },
    {
        id: 'all-kinds-defaults',
        tool: 'all_kinds',
        arguments: { multi: false },
        steps: (p) => [{ ...everyKind(p), answer: accept(REQUIRED_ONLY) }],
        expect: () => ({ result: { status: 'accepted', kinds: { ...REQUIRED_ONLY, ...DEFAULTS_FILLED } } }),
    },
    {
        id: 'invalid-answer',
        tool: 'all_kinds',
        arguments: { multi: false },
        steps: (p) => [{ ...everyKind(p), answer: accept({ ...FULL_ANSWER, count: 99 }) }],
        expect: () => ({ isError: true, errorMentions: ['count'] }),
    },
    {
        id: 'shaped-pick',
        tool: 'shaped_pick',
        arguments: { multi: true },
        protocols: ['2025-11-25'],
        steps: (p) => [{ ...shapedPick(p), answer: accept({ account: 'acc-1', tags: ['blue', 'red'], amount: 15 }) }],
        expect: () => ({ result: { status: 'accepted', answer: { account: 'acc-1', tags: ['blue', 'red'], amount: 15 } } }),
    },
    {
        id: 'shaped-pick-defaults',
        tool: 'shaped_pick',
        arguments: { multi: true },
        protocols: ['2025-11-25'],
        steps: (p) => [{ ...shapedPick(p), answer: accept({ tags: ['green'] }) }],
        expect: () => ({ result: { status: 'accepted', answer: { account: 'acc-2', tags: ['green'], amount: 40 } } }),
    },
    {
        id: 'shaped-pick-not-offered',
        tool: 'shaped_pick',
        arguments: { multi: false },
        steps: (p) => [{ ...shapedOne(p), answer: accept({ account: 'acc-9', confirm: true }) }],
        expect: () => ({ isError: true, errorMentions: ['account'] }),
    },
    {
        id: 'shaped-one',
        tool: 'shaped_pick',
        arguments: { multi: false },
        steps: (p) => [{ ...shapedOne(p), answer: accept({ account: 'acc-2' }) }],
        expect: () => ({ result: { status: 'accepted', answer: { account: 'acc-2', confirm: true } } }),
    },
];
