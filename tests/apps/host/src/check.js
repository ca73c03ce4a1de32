// The host's own check of an app's ElicitResult against the request's requestedSchema.
//
// The app is untrusted (SEP-3118: "The host MUST treat the app as untrusted and MUST validate
// accepted content against `requestedSchema` outside the app sandbox"), so this runs in the host
// page, never in the app frame. It checks the restricted elicitation schema of MCP 2025-11-25:
//   - action is one of accept / decline / cancel; only accept carries content;
//   - content is a plain object with no key outside `properties`, and every `required` key;
//   - string: a string; minLength / maxLength (in code points); format email / uri / date /
//     date-time (shape only); enum / oneOf const / legacy enum+enumNames membership;
//   - number / integer: a finite number (an integer for `integer`); minimum / maximum;
//   - boolean: a boolean;
//   - array (multi-select): an array of distinct strings, each in items.enum / items.anyOf
//     const; minItems / maxItems.
// A property kind it does not know is refused (fail closed). Problems name the field and the
// rule, never the value.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function allowedStrings(schema) {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (Array.isArray(schema.oneOf)) return schema.oneOf.map((o) => o.const);
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map((o) => o.const);
  return null;
}

function checkFormat(value, format) {
  if (format === "email") return EMAIL.test(value);
  if (format === "date") return DATE.test(value) && !Number.isNaN(Date.parse(value));
  if (format === "date-time") return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
  if (format === "uri") {
    try {
      return Boolean(new URL(value).protocol);
    } catch {
      return false;
    }
  }
  return true;
}

function checkValue(name, value, schema) {
  const problems = [];
  const type = schema.type;
  if (type === "string") {
    if (typeof value !== "string") return [`${name}: not a string`];
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) problems.push(`${name}: shorter than minLength`);
    if (typeof schema.maxLength === "number" && length > schema.maxLength) problems.push(`${name}: longer than maxLength`);
    if (schema.format && !checkFormat(value, schema.format)) problems.push(`${name}: not a valid ${schema.format}`);
    const allowed = allowedStrings(schema);
    if (allowed && !allowed.includes(value)) problems.push(`${name}: not one of the choices`);
    return problems;
  }
  if (type === "number" || type === "integer") {
    if (typeof value !== "number" || !Number.isFinite(value)) return [`${name}: not a number`];
    if (type === "integer" && !Number.isInteger(value)) problems.push(`${name}: not an integer`);
    if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${name}: below minimum`);
    if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${name}: above maximum`);
    return problems;
  }
  if (type === "boolean") return typeof value === "boolean" ? [] : [`${name}: not a boolean`];
  if (type === "array") {
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) return [`${name}: not a list of strings`];
    if (new Set(value).size !== value.length) problems.push(`${name}: a choice is repeated`);
    const allowed = allowedStrings(schema.items ?? {});
    if (!allowed || value.some((v) => !allowed.includes(v))) problems.push(`${name}: not one of the choices`);
    if (typeof schema.minItems === "number" && value.length < schema.minItems) problems.push(`${name}: fewer than minItems`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) problems.push(`${name}: more than maxItems`);
    return problems;
  }
  return [`${name}: a property kind this host does not know`];
}

/** The problems of `result` for `requestedSchema`; an empty list means the host accepts it. */
export function checkElicitResult(result, requestedSchema) {
  if (!result || !["accept", "decline", "cancel"].includes(result.action)) return ["action: not accept, decline or cancel"];
  if (result.action !== "accept") return result.content == null ? [] : ["content: only accept carries content"];
  const content = result.content ?? {};
  if (typeof content !== "object" || Array.isArray(content)) return ["content: not an object"];
  const properties = requestedSchema?.properties ?? {};
  const problems = [];
  for (const name of Object.keys(content)) {
    if (!Object.hasOwn(properties, name)) problems.push(`${name}: not a field of the form`);
  }
  for (const name of requestedSchema?.required ?? []) {
    if (!Object.hasOwn(content, name)) problems.push(`${name}: required`);
  }
  for (const [name, schema] of Object.entries(properties)) {
    if (Object.hasOwn(content, name)) problems.push(...checkValue(name, content[name], schema));
  }
  return problems;
}
