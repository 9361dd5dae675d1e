import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

/**
 * Validates real responses against askgate's OpenAPI 3.1 document with ajv's 2020-12 dialect (the document's
 * `jsonSchemaDialect`). Hand-written over a response-validator library: the maintained ones (openapi-response-
 * validator, jest-openapi / chai-openapi-response-validator) read OpenAPI 2 and 3.0 only, and refuse 3.1's JSON
 * Schema (type arrays, `const`, 2020-12 keywords); what is needed here is small: find the operation, the status, the
 * media type, and run ajv on the body. The document itself is checked against the OpenAPI 3.1 schema with
 * @seriousme/openapi-schema-validator.
 */

type Json = Record<string, unknown>;
const addFormats = ajvFormats.default;

export interface CheckedResponse {
  /** The documented operation, `post /api/interactions/{id}/answer`. */
  operation: string;
  status: number;
}

export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Every operation and status a checked response matched, for the coverage assertions. */
  readonly seen: CheckedResponse[] = [];

  constructor(readonly doc: Json) {
    addFormats(this.ajv);
    // The document under an id, so a response schema's `#/components/schemas/X` resolves inside it.
    this.ajv.addSchema({ $id: 'askgate:openapi', components: doc['components'] } as Json);
  }

  /** `{method, template}` of the documented path a concrete request path matches; throws when none does. */
  operationOf(method: string, path: string): { template: string; op: Json } {
    const paths = this.doc['paths'] as Record<string, Record<string, Json>>;
    const bare = path.split('?')[0] as string;
    // Literal paths win over templated ones (`/api/interactions/stream` over `/api/interactions/{id}`).
    const templates = Object.keys(paths).sort((a, b) => a.split('{').length - b.split('{').length);
    for (const template of templates) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const op = paths[template]?.[method.toLowerCase()];
      if (pattern.test(bare) && op !== undefined) return { template, op };
    }
    throw new Error(`${method} ${bare} is not in the OpenAPI document`);
  }

  private validator(pointer: string, schema: Json): ValidateFunction {
    let fn = this.compiled.get(pointer);
    if (fn === undefined) {
      fn = this.ajv.compile({ ...schema, $id: `askgate:${pointer}` });
      this.compiled.set(pointer, fn);
    }
    return fn;
  }

  /** Schema check of any value against a schema of the document, e.g. `Interaction` for a stream event's data. */
  component(name: string, value: unknown): string | null {
    const fn = this.validator(`component:${name}`, { $ref: `askgate:openapi#/components/schemas/${name}` });
    return fn(value) ? null : this.ajv.errorsText(fn.errors);
  }

  /**
   * Checks one real response: its status is documented for the operation, its media type is, and a JSON body
   * matches the schema (`#/components/...` resolved in the document). Returns the problems (empty when it conforms).
   */
  check(method: string, path: string, status: number, contentType: string, body: unknown): string[] {
    const { template, op } = this.operationOf(method, path);
    const name = `${method.toLowerCase()} ${template}`;
    const responses = op['responses'] as Record<string, Json>;
    const response = responses[String(status)];
    if (response === undefined) return [`${name}: status ${status} is not documented`];
    const media = contentType.split(';')[0]?.trim() ?? '';
    const content = response['content'] as Record<string, { schema: Json }> | undefined;
    if (content === undefined) {
      // A response documented without a body (a 204): none may come.
      this.seen.push({ operation: name, status });
      return body === '' ? [] : [`${name} ${status}: a body came where none is documented`];
    }
    const entry = content?.[media];
    if (entry === undefined) return [`${name} ${status}: media type ${media} is not documented`];
    this.seen.push({ operation: name, status });
    if (media !== 'application/json') return [];
    const fn = this.validator(`${name} ${status}`, rebase(entry.schema));
    return fn(body) ? [] : [`${name} ${status}: ${this.ajv.errorsText(fn.errors)} in ${JSON.stringify(body)}`];
  }

  /** The request body schema of an operation checked against a body sent to it. */
  checkRequest(method: string, path: string, body: unknown): string | null {
    const { template, op } = this.operationOf(method, path);
    const content = (op['requestBody'] as Json | undefined)?.['content'] as
      | Record<string, { schema: Json }>
      | undefined;
    const schema = content?.['application/json']?.schema;
    if (schema === undefined) return `${method} ${template} documents no JSON body`;
    const fn = this.validator(`request ${method} ${template}`, rebase(schema));
    return fn(body) ? null : this.ajv.errorsText(fn.errors);
  }
}

/** The schema with every `#/components/...` ref pointed into the document registered as `askgate:openapi`. */
function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"askgate:openapi#/components/')) as Json;
}
