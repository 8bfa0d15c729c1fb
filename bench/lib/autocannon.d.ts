// The part of autocannon's API the load generator uses (the package ships no types and
// @types/autocannon is not a dependency).
declare module 'autocannon' {
  interface Latency {
    p50: number;
    p99: number;
    max: number;
  }
  interface Result {
    duration: number;
    requests: { total: number };
    latency: Latency;
    '2xx': number;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    requests?: { method?: string; setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }[];
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
