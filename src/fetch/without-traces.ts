// Errors the pipeline expects and never reads a trace of are built without one: Node captures and
// later formats a stack for every Error, the costliest part of making it.

/** Runs `make` with stack capture off; errors made inside have only their name and message as `stack`. */
export function withoutTraces<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
