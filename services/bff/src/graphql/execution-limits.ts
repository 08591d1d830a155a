import type { Logger } from '@inventario/platform';
import {
  defaultFieldResolver,
  execute,
  getNullableType,
  GraphQLError,
  isCompositeType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  OperationTypeNode,
  getLocation,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type FieldNode,
  type SourceLocation,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { FieldResolver } from './context';
import type { GraphqlContext } from './context';
import { CLASSIFICATION } from './errors';

/**
 * What one request may cost while it runs (GRAPHQL_MAX_NODES, GRAPHQL_DEADLINE_MS), whatever the
 * estimate said: lists without `first` may be longer than it assumed.
 */
export interface ExecutionLimits {
  maxNodes: number;
  deadlineMs: number;
}

/**
 * A full `{ productos { id nombre } }` of 100,000 products still answers (the original clients
 * read whole lists); 10 s is twice the downstream deadline, so one slow call can be waited out.
 */
export const DEFAULT_EXECUTION_LIMITS: ExecutionLimits = { maxNodes: 100_000, deadlineMs: 10_000 };

/**
 * Once a limit is passed the request has failed: `failure` is the one error it answers with (no
 * data), and `signal` is aborted so work in flight can stop early.
 */
export interface ExecutionGuard {
  readonly signal: AbortSignal;
  readonly failure: GraphQLError | undefined;
  /** Calls `listener` once, when the request fails (not if it already has); the returned function unsubscribes. */
  onFailure(listener: () => void): () => void;
  check(): void;
  count(nodes: number): void;
  /** What the cap leaves once the nodes counted and those reserved by lists being read are taken. */
  remainingNodes(): number;
  /**
   * Reads one list (or one batch of lists) of at most `first` items, all when absent, within the
   * node cap, so a request's memory is bounded before any read starts: the list reserves what it
   * may yield from what remains, waiting while lists read beside it hold all of it; `read` gets the
   * most rows it may read (one more than its share shows the cap passed); its items are counted
   * before a waiting list is let in (the resolver's field is then not counted again).
   */
  readList<T>(first: number | undefined, read: (limit: number) => Promise<T[]>): Promise<T[]>;
  /** Lists whose items a readList already counted (a batch's lists, dealt out to their parents). */
  markCounted(lists: Iterable<unknown[]>): void;
  /** Whether `value` was counted by readList (once: a second sighting counts). */
  takeCounted(value: unknown): boolean;
  msLeft(): number;
  /** The timer's way in, when no resolver is running to notice the deadline. */
  expire(): void;
}

export function nodeCapError(maxNodes: number): GraphQLError {
  return new GraphQLError(
    `La consulta supera el máximo de ${maxNodes} nodos de resultado: pida menos elementos con first y after`,
    {
      extensions: { classification: CLASSIFICATION.validation },
    },
  );
}

export function deadlineError(deadlineMs: number): GraphQLError {
  return new GraphQLError(`La consulta superó su tiempo máximo de ejecución (${deadlineMs} ms)`, {
    extensions: { classification: CLASSIFICATION.deadlineExceeded },
  });
}

export function clientGoneError(): GraphQLError {
  return new GraphQLError('El cliente cerró la conexión antes de la respuesta', {
    extensions: { classification: CLASSIFICATION.badRequest },
  });
}

/** A client's disconnection, as the guard listens for it: an AbortSignal is one. */
export interface Disconnection {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options: { once: true }): void;
}

/**
 * `clientGone`: aborted when the HTTP client disconnects; the request then stops like at a limit. One closure:
 * every method reads and moves the same request's counters, deadline and failure.
 */
export function createExecutionGuard(
  limits: ExecutionLimits,
  now: () => number = Date.now,
  clientGone?: Disconnection,
): ExecutionGuard {
  const deadline = now() + limits.deadlineMs;
  // Made when first asked for (most reads never are: a cached record is at hand), aborted already if the request
  // has failed by then (issue 23).
  let controller: AbortController | undefined;
  let nodes = 0;
  let reserved = 0;
  let failure: GraphQLError | undefined;
  const waiting = new Set<() => void>();
  const failureListeners = new Set<() => void>();
  const countedByRead = new WeakSet<object>();
  const wake = () => {
    for (const resume of [...waiting]) resume();
    waiting.clear();
  };

  const fail = (error: GraphQLError): GraphQLError => {
    if (!failure) {
      failure = error;
      controller?.abort(error);
      for (const listener of [...failureListeners]) listener();
      failureListeners.clear();
      wake();
    }
    return failure;
  };
  if (clientGone?.aborted) fail(clientGoneError());
  else clientGone?.addEventListener('abort', () => fail(clientGoneError()), { once: true });
  const free = () => Math.max(0, limits.maxNodes - nodes - reserved);

  const guard: ExecutionGuard = {
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (failure) controller.abort(failure);
      }
      return controller.signal;
    },
    get failure() {
      return failure;
    },
    onFailure(listener) {
      if (!failure) failureListeners.add(listener);
      return () => failureListeners.delete(listener);
    },
    check() {
      if (failure) throw failure;
      if (now() >= deadline) throw fail(deadlineError(limits.deadlineMs));
    },
    count(resolved) {
      nodes += resolved;
      if (nodes > limits.maxNodes) throw fail(nodeCapError(limits.maxNodes));
    },
    remainingNodes: free,
    async readList(first, read) {
      const wanted = first ?? Infinity;
      guard.check();
      // Another list may give back what it holds: wait for it rather than read past the cap.
      while (free() === 0 && reserved > 0 && wanted > 0) {
        await new Promise<void>((resume) => waiting.add(resume));
        guard.check();
      }
      const share = Math.min(wanted, free());
      reserved += share;
      let held = share;
      try {
        const items = await read(share < wanted ? share + 1 : share);
        guard.check();
        reserved -= held;
        held = 0;
        guard.count(items.length);
        countedByRead.add(items);
        return items;
      } finally {
        reserved -= held;
        wake();
      }
    },
    markCounted(lists) {
      for (const list of lists) countedByRead.add(list);
    },
    takeCounted: (value) => typeof value === 'object' && value !== null && countedByRead.delete(value),
    msLeft: () => Math.max(0, deadline - now()),
    expire() {
      fail(deadlineError(limits.deadlineMs));
    },
  };
  return guard;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function nodesIn(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value === null || value === undefined ? 0 : 1;
}

function guarded(resolve: FieldResolver, list: boolean, nonNull: boolean): FieldResolver {
  const counted = (guard: ExecutionGuard, value: unknown) => {
    guard.check();
    if (!guard.takeCounted(value)) guard.count(nodesIn(value));
    return value;
  };
  return (source, args, context: GraphqlContext, info) => {
    const { guard } = context;
    // The request has failed and its data will be dropped: end this branch at no cost.
    if (guard.failure && (list || !nonNull)) return list ? [] : null;
    guard.check();
    const value = resolve(source, args, context, info);
    return isPromiseLike(value) ? value.then((resolved) => counted(guard, resolved)) : counted(guard, value);
  };
}

/**
 * Every field that yields result nodes checks the guard, so the cap and the deadline hold even when
 * every value is at hand and execution never yields to the event loop.
 */
export function limitExecution(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const nullable = getNullableType(field.type);
      const list = isListType(nullable);
      if (!list && !isCompositeType(nullable)) continue;
      field.resolve = guarded(field.resolve ?? defaultFieldResolver, list, isNonNullType(field.type));
    }
  }
  return schema;
}

/** Compiled queries by document (the document cache hands out one DocumentNode per query text) and operation. */
const compiledQueries = new WeakMap<DocumentNode, Map<string, CompiledQuery>>();

/**
 * Queries run compiled (graphql-jit: each document and operation compiled once into plain
 * functions, the same resolvers, the same answers), which is most of what a read costs once the
 * document's parse and validation are cached. Mutations and anything graphql-jit cannot compile run
 * on graphql-js, as before.
 */
function executeCompiled(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
  const operation = args.document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (args.operationName ? d.name?.value === args.operationName : true),
  );
  if (operation?.kind !== Kind.OPERATION_DEFINITION || operation.operation !== OperationTypeNode.QUERY)
    return execute(args);
  let byOperation = compiledQueries.get(args.document);
  if (!byOperation) compiledQueries.set(args.document, (byOperation = new Map<string, CompiledQuery>()));
  const key = args.operationName ?? '';
  let compiled = byOperation.get(key);
  if (!compiled) {
    const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    if (!isCompiledQuery(result)) return execute(args);
    compiled = result;
    byOperation.set(key, compiled);
  }
  const outcome = compiled.query(args.rootValue, args.contextValue, args.variableValues);
  return isPromiseLike(outcome)
    ? Promise.resolve(outcome).then((r) => asGraphqlJsResult(args.document, r))
    : asGraphqlJsResult(args.document, outcome);
}

/** Each FieldNode of a document by its location (`line:column`), to give graphql-jit's errors their nodes back. */
const fieldsByLocation = new WeakMap<DocumentNode, Map<string, FieldNode>>();

function fieldAt(document: DocumentNode, location: SourceLocation | undefined): FieldNode | undefined {
  if (!location || !document.loc) return undefined;
  let fields = fieldsByLocation.get(document);
  if (!fields) {
    const found = new Map<string, FieldNode>();
    const source = document.loc.source;
    visit(document, {
      Field(node) {
        if (!node.loc) return;
        const at = getLocation(source, node.loc.start);
        found.set(`${at.line}:${at.column}`, node);
      },
    });
    fieldsByLocation.set(document, (fields = found));
  }
  return fields.get(`${location.line}:${location.column}`);
}

/**
 * graphql-jit reports errors as its own GraphQLError (locations but no nodes, no extensions object);
 * the error formatter and every answer expect graphql-js's: the same message, path, original error
 * and extensions, located at the same field.
 */
function asGraphqlJsResult(document: DocumentNode, result: ExecutionResult): ExecutionResult {
  if (!result.errors) return result;
  const errors = result.errors.map((err) => {
    const node = fieldAt(document, err.locations?.[0]);
    return new GraphQLError(err.message, {
      ...(node ? { nodes: node } : {}),
      ...(err.path ? { path: err.path } : {}),
      ...(err.originalError ? { originalError: err.originalError } : {}),
      ...(err.extensions ? { extensions: err.extensions } : {}),
    });
  });
  return { ...result, errors };
}

/**
 * Answers with only the guard's error and `data: null` as soon as a limit is passed (a partial
 * result would look complete), even while a resolver still waits on a slow service.
 */
export function createLimitedExecute(
  logger: Logger,
): (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult> {
  return (args) => {
    const { guard } = args.contextValue as GraphqlContext;
    const failed = (): ExecutionResult => {
      const error = guard.failure!;
      logger.warn(
        { operationName: args.operationName ?? undefined, reason: error.message },
        'GraphQL request stopped at its limit',
      );
      return { data: null, errors: [error] };
    };
    const outcome = executeCompiled(args);
    if (!isPromiseLike(outcome)) return guard.failure ? failed() : outcome;
    return new Promise<ExecutionResult>((resolve, reject) => {
      let answered = false;
      const answer = (settle: () => void) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        unsubscribe();
        settle();
      };
      const onFailure = () => answer(() => resolve(failed()));
      const timer = setTimeout(() => guard.expire(), guard.msLeft());
      const unsubscribe = guard.onFailure(onFailure);
      if (guard.failure) onFailure();
      outcome.then(
        (result) => answer(() => resolve(guard.failure ? failed() : result)),
        (err: unknown) => answer(() => reject(err instanceof Error ? err : new Error(String(err)))),
      );
    });
  };
}
