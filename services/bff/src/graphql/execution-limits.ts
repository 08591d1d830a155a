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
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { FieldResolver } from './context';
import type { GraphqlContext } from './context';
import { CLASSIFICATION } from './errors';

/**
 * What one GraphQL request may cost while it runs, whatever its document
 * passed before (the result estimate assumes lists of 100 items when they
 * have no `first`; real ones may be longer).
 */
export interface ExecutionLimits {
  /** Result nodes (objects and list items, the estimate's unit) one request may resolve (GRAPHQL_MAX_NODES). */
  maxNodes: number;
  /** Time one request may take from its parsed document to its result, in ms (GRAPHQL_DEADLINE_MS). */
  deadlineMs: number;
}

/**
 * 100,000 nodes: a full `{ productos { id nombre } }` of 100,000 products
 * still answers (the original clients read whole lists), while anything larger
 * must be asked for page by page. 10 s: twice the downstream call deadline, so
 * a request can wait out one slow call and still answer.
 */
export const DEFAULT_EXECUTION_LIMITS: ExecutionLimits = { maxNodes: 100_000, deadlineMs: 10_000 };

/**
 * One request's account of its limits, in its GraphQL context. Once a limit
 * is passed the request has failed: `failure` is the one error it answers
 * with (no data), and `signal` is aborted so work in flight can stop early.
 */
export interface ExecutionGuard {
  readonly signal: AbortSignal;
  readonly failure: GraphQLError | undefined;
  /** Throws the request's failure once it has one or its deadline has passed. */
  check(): void;
  /** Counts resolved result nodes; throws once more than maxNodes were counted. */
  count(nodes: number): void;
  /** Nodes that may still be counted before the cap is passed. */
  remainingNodes(): number;
  /** Milliseconds until the deadline, at least 0. */
  msLeft(): number;
  /** Fails the request with the deadline error (the timer's way in, when no resolver is running to notice). */
  expire(): void;
}

/** The error of a request that resolved more than `maxNodes` result nodes. */
export function nodeCapError(maxNodes: number): GraphQLError {
  return new GraphQLError(`La consulta supera el máximo de ${maxNodes} nodos de resultado: pida menos elementos con first y after`, {
    extensions: { classification: CLASSIFICATION.validation },
  });
}

/** The error of a request still running at its deadline. */
export function deadlineError(deadlineMs: number): GraphQLError {
  return new GraphQLError(`La consulta superó su tiempo máximo de ejecución (${deadlineMs} ms)`, {
    extensions: { classification: CLASSIFICATION.deadlineExceeded },
  });
}

export function createExecutionGuard(limits: ExecutionLimits, now: () => number = Date.now): ExecutionGuard {
  const deadline = now() + limits.deadlineMs;
  const controller = new AbortController();
  let nodes = 0;
  let failure: GraphQLError | undefined;

  const fail = (error: GraphQLError): GraphQLError => {
    if (!failure) {
      failure = error;
      controller.abort(error);
    }
    return failure;
  };

  return {
    signal: controller.signal,
    get failure() {
      return failure;
    },
    check() {
      if (failure) throw failure;
      if (now() >= deadline) throw fail(deadlineError(limits.deadlineMs));
    },
    count(resolved) {
      nodes += resolved;
      if (nodes > limits.maxNodes) throw fail(nodeCapError(limits.maxNodes));
    },
    remainingNodes: () => Math.max(0, limits.maxNodes - nodes),
    msLeft: () => Math.max(0, deadline - now()),
    expire() {
      fail(deadlineError(limits.deadlineMs));
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** Result nodes in a field's resolved value: a list's items, or the object itself. */
function nodesIn(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value === null || value === undefined ? 0 : 1;
}

function guarded(resolve: FieldResolver, list: boolean, nonNull: boolean): FieldResolver {
  const counted = (guard: ExecutionGuard, value: unknown) => {
    guard.check();
    guard.count(nodesIn(value));
    return value;
  };
  return (source, args, context: GraphqlContext, info) => {
    const { guard } = context;
    // The request has already failed and its data will be dropped: end this branch at no cost (an error per field would cost more).
    if (guard.failure && (list || !nonNull)) return list ? [] : null;
    guard.check();
    const value = resolve(source, args, context, info);
    return isPromiseLike(value) ? value.then((resolved) => counted(guard, resolved)) : counted(guard, value);
  };
}

/**
 * Puts every field that yields result nodes (objects and lists, on every
 * object type but introspection's) under the request's guard: before it
 * resolves, the deadline is checked; once it has, its nodes are counted. So
 * the cap and the deadline hold while execution runs, even when every value
 * is already at hand and execution never yields to the event loop.
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

/**
 * graphql-http's `execute`: graphql-js's, answered with only the guard's
 * error and `data: null` as soon as a limit is passed (a partial result of
 * an aborted request would look complete), even while a resolver still waits
 * on a slow service: that call ends at its own gRPC deadline, and no new one
 * starts.
 */
export function createLimitedExecute(logger: Logger): (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult> {
  return (args) => {
    const { guard } = args.contextValue as GraphqlContext;
    const failed = (): ExecutionResult => {
      const error = guard.failure!;
      logger.warn({ operationName: args.operationName ?? undefined, reason: error.message }, 'GraphQL request stopped at its limit');
      return { data: null, errors: [error] };
    };
    const outcome = execute(args);
    if (!isPromiseLike(outcome)) return guard.failure ? failed() : outcome;
    return new Promise<ExecutionResult>((resolve, reject) => {
      let answered = false;
      const answer = (settle: () => void) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        guard.signal.removeEventListener('abort', onAbort);
        settle();
      };
      // The deadline, or the cap passed anywhere, answers at once: no waiting for calls in flight.
      // Once answered, whatever execution still finishes with is dropped.
      const onAbort = () => answer(() => resolve(failed()));
      const timer = setTimeout(() => guard.expire(), guard.msLeft());
      if (guard.signal.aborted) onAbort();
      else guard.signal.addEventListener('abort', onAbort, { once: true });
      outcome.then(
        (result) => answer(() => resolve(guard.failure ? failed() : result)),
        (err: unknown) => answer(() => reject(err instanceof Error ? err : new Error(String(err)))),
      );
    });
  };
}
