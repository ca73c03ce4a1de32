// A strict, independent check of an elicitation `requestedSchema`, built from the TS SDK's own
// zod schemas. The SDK's schemas are lenient (unknown keys are stripped, not refused); here every
// property must match EXACTLY ONE spec kind with no key outside it, and the top level must hold
// only `type`, `properties`, `required` (no `title`, `$schema`, `$defs`, ...).
import { types } from './sdk.mjs';

function strictOption() {
    return types.TitledSingleSelectEnumSchemaSchema.shape.oneOf.element.strict();
}

// kind name -> strict zod schema
export const KINDS = {
    boolean: types.BooleanSchemaSchema.strict(),
    string: types.StringSchemaSchema.strict(),
    number: types.NumberSchemaSchema.strict(),
    untitledSingle: types.UntitledSingleSelectEnumSchemaSchema.strict(),
    titledSingle: types.TitledSingleSelectEnumSchemaSchema.extend({
        oneOf: strictOption().array(),
    }).strict(),
    legacyTitled: types.LegacyTitledEnumSchemaSchema.extend({
        enumNames: types.LegacyTitledEnumSchemaSchema.shape.enumNames.unwrap(),
    }).strict(),
    untitledMulti: types.UntitledMultiSelectEnumSchemaSchema.extend({
        items: types.UntitledMultiSelectEnumSchemaSchema.shape.items.strict(),
    }).strict(),
    titledMulti: types.TitledMultiSelectEnumSchemaSchema.extend({
        items: types.TitledMultiSelectEnumSchemaSchema.shape.items.extend({
            anyOf: strictOption().array(),
        }).strict(),
    }).strict(),
};

/** The spec kind of one property, or throw naming every kind it failed. */
export function kindOf(name, prop) {
    const matches = [];
    const errors = [];
    for (const [kind, schema] of Object.entries(KINDS)) {
        const r = schema.safeParse(prop);
        if (r.success) matches.push(kind);
        else errors.push(`${kind}: ${r.error.issues.map((i) => `${i.path.join('.') || '.'} ${i.message}`).join('; ')}`);
    }
    // An untitled single select is also a legacy titled enum without enumNames: one spec kind.
    if (matches.length === 2 && matches.includes('untitledSingle') && matches.includes('legacyTitled')) {
        return 'untitledSingle';
    }
    if (matches.length !== 1) {
        throw new Error(
            `property ${JSON.stringify(name)} = ${JSON.stringify(prop)} matches ${matches.length} spec kinds` +
                (matches.length ? ` (${matches.join(', ')})` : `:\n    ${errors.join('\n    ')}`),
        );
    }
    const kind = matches[0];
    // Semantic checks the zod types do not make.
    if ('default' in prop) {
        if (kind === 'untitledSingle' || kind === 'legacyTitled') {
            if (!prop.enum.includes(prop.default)) throw new Error(`${name}: default not among the options`);
        }
        if (kind === 'titledSingle' && !prop.oneOf.some((o) => o.const === prop.default)) {
            throw new Error(`${name}: default not among the options`);
        }
        if (kind === 'number' && prop.type === 'integer' && !Number.isInteger(prop.default)) {
            throw new Error(`${name}: integer field with non-integer default`);
        }
    }
    if (kind === 'legacyTitled' && prop.enumNames.length !== prop.enum.length) {
        throw new Error(`${name}: enumNames and enum differ in length`);
    }
    return kind;
}

/** Check a whole requestedSchema; returns {property: kind}. */
export function checkRequestedSchema(schema) {
    const top = Object.keys(schema).filter((k) => !['type', 'properties', 'required'].includes(k));
    if (top.length) throw new Error(`requestedSchema has keys outside the spec: ${top.join(', ')}`);
    if (schema.type !== 'object') throw new Error(`requestedSchema.type is ${schema.type}`);
    const kinds = {};
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        kinds[name] = kindOf(name, prop);
    }
    for (const r of schema.required ?? []) {
        if (!(r in schema.properties)) throw new Error(`required names unknown property ${r}`);
    }
    if (Object.keys(kinds).length === 0) throw new Error('requestedSchema has no properties (hangs some clients)');
    return kinds;
}
