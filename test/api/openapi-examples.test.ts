import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import { deref, doc } from '../helpers/contract.js';

// Every example in openapi.yaml matches the schema it illustrates: parameter and header examples,
// and each media type's `example` or `examples` (components/examples included, through $ref).
// Redocly's lint checks media-type examples only; readers copy the others too.

const ajv = new Ajv({ strict: false, allErrors: true });
const addFormats = (await import('ajv-formats')).default as unknown as (a: Ajv, f: string[]) => void;
addFormats(ajv, ['uri', 'uri-reference', 'date-time']);

type Node = Record<string, any>;
/** [where, schema, example value] for every example of the document. */
const examples: Array<[string, Node, unknown]> = [];

function withExamples(where: string, node: Node): void {
  if (node.schema === undefined) return;
  if ('example' in node) examples.push([where, node.schema, node.example]);
  for (const [name, example] of Object.entries<Node>(node.examples ?? {})) examples.push([`${where} (${name})`, node.schema, example.value]);
}

const resolved = deref(doc) as Node;
for (const [path, item] of Object.entries<Node>(resolved.paths)) {
  for (const [method, op] of Object.entries<Node>(item)) {
    const at = `${method.toUpperCase()} ${path}`;
    for (const p of op.parameters ?? []) withExamples(`${at} parameter ${p.name}`, p);
    for (const [status, response] of Object.entries<Node>(op.responses)) {
      for (const [name, header] of Object.entries<Node>(response.headers ?? {})) withExamples(`${at} ${status} header ${name}`, header);
      for (const [type, media] of Object.entries<Node>(response.content ?? {})) withExamples(`${at} ${status} ${type}`, media);
    }
  }
}

test('the document has examples to check', () => {
  assert.ok(examples.length >= 40, `only ${examples.length}`);
});

for (const [where, schema, value] of examples) {
  test(where, () => {
    const validate = ajv.compile(schema);
    assert.ok(validate(value), `${JSON.stringify(value)?.slice(0, 200)}: ${ajv.errorsText(validate.errors)}`);
  });
}

test.run();
