// Checks real answers against the published contract (api/openapi.json): the status must be one the operation lists,
// the media type one it lists for that status, and a JSON body must validate against that schema (ajv, JSON Schema
// 2020-12, the dialect of OpenAPI 3.1). startTestApp installs it on every app it builds, so a test file whose HTTP
// tests see an answer the document does not describe fails.
import { readFileSync } from 'node:fs';
import { after } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { openApiPath } from '../../src/openapi/document.ts';

type Json = Record<string, unknown>;

interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
}

export interface ObservedAnswer {
  method: string;
  /** The route's URL as registered (`/admin/clients/:id`). */
  route: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

const CONTRACT_FILE = new URL('../../api/openapi.json', import.meta.url);
let shared: ContractChecker | null = null;

/** One checker per test process: the document is read and each schema compiled once. */
export function contractChecker(): ContractChecker {
  shared ??= new ContractChecker(JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as Json);
  return shared;
}

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class ContractChecker {
  readonly #document: Json;
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.#document = document;
    addFormats.default(this.#ajv);
    this.#ajv.addSchema(document, 'contract');
  }

  /** The operation, or undefined for a route the contract leaves out (hidden gateway routes, test probes). */
  operation(method: string, route: string): Operation | undefined {
    const paths = this.#document.paths as Record<string, Record<string, Operation>>;
    return paths[openApiPath(route)]?.[method.toLowerCase()];
  }

  /** What is wrong with an answer, or null when the contract describes it. */
  problem(answer: ObservedAnswer): string | null {
    const method = answer.method === 'HEAD' ? 'GET' : answer.method;
    const operation = this.operation(method, answer.route);
    if (!operation) return null;
    const where = `${answer.method} ${answer.route} → ${answer.status}`;
    const found = operation.responses[String(answer.status)];
    if (!found) return `${where}: status not in the contract (${answer.body.slice(0, 200)})`;
    // A shared answer (components.responses): its schema is validated where it is defined.
    const ref = found.$ref;
    const response = ref ? this.#resolve(ref) : found;
    const mediaType = answer.contentType?.split(';')[0]?.trim().toLowerCase();
    if (!response.content || answer.method === 'HEAD' || answer.body === '') {
      if (answer.body !== '' && answer.method !== 'HEAD') return `${where}: a body where the contract has none`;
      return null;
    }
    if (!mediaType || !(mediaType in response.content))
      return `${where}: content type ${mediaType ?? '(none)'} not in the contract`;
    if (mediaType !== 'application/json') return null;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return `${where}: the body is not JSON`;
    }
    const at = ref
      ? `${ref}/${pointer('content', 'application/json', 'schema')}`
      : `#/${pointer('paths', openApiPath(answer.route), method.toLowerCase(), 'responses', String(answer.status), 'content', 'application/json', 'schema')}`;
    const validate = this.#validator(at);
    if (validate(body)) return null;
    return `${where}: ${this.#ajv.errorsText(validate.errors)} in ${answer.body.slice(0, 300)}`;
  }

  #validator(at: string): ValidateFunction {
    let validate = this.#validators.get(at);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `contract${at}` });
      this.#validators.set(at, validate);
    }
    return validate;
  }

  /** A local reference (`#/components/responses/Error500`) in the document. */
  #resolve(ref: string): { content?: Record<string, unknown> } {
    let node: unknown = this.#document;
    for (const part of ref.slice(2).split('/')) node = (node as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    return node as { content?: Record<string, unknown> };
  }
}

// Problems found in this test file. Reported once, after every suite's hooks ran (a failing hook would skip the
// hooks after it, leaving apps and pools open): the file's process then exits 1, which node:test reports as the file
// failing, with this list on stderr.
const problems: string[] = [];
let checked = 0;
after(() => {
  if (problems.length === 0) return;
  process.exitCode = 1;
  process.stderr.write(
    `\n${problems.length} answer(s) the OpenAPI document (api/openapi.json) does not describe:\n${problems.map((p) => `  ${p}\n`).join('')}`,
  );
});

/** Checks every answer `app` sends against the contract. Call before the app is ready. */
export function watchAnswers(app: FastifyInstance, checker = contractChecker()): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    // Streams are not read here; no route of ours streams a body the contract describes.
    if (route === undefined || (payload != null && typeof payload !== 'string' && !Buffer.isBuffer(payload)))
      return payload;
    const problem = checker.problem({
      method: request.method,
      route,
      status: reply.statusCode,
      contentType: reply.getHeader('content-type') as string | undefined,
      body: payload == null ? '' : payload.toString(),
    });
    checked += 1;
    if (problem) problems.push(problem);
    return payload;
  });
}

/** The problems found so far in this file, and how many answers were checked (the contract test asserts on both). */
export const contractProblems = (): readonly string[] => problems;
export const answersChecked = (): number => checked;
