// Redis first, memory while Redis fails (DESIGN.md "Scaling out": an instance degrades to its own
// memory stores and says so in logs and /healthz; it never answers 500 because a store is down).
// One Failover per Redis connection, shared by the rate limiter and the cache, so both agree on
// whether the instance is degraded and the log says it once per outage.

export class Failover {
  private down = false;

  constructor(private readonly onChange: (degraded: boolean, err?: unknown) => void = () => {}) {}

  get degraded(): boolean {
    return this.down;
  }

  async run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    try {
      const result = await primary();
      if (this.down) {
        this.down = false;
        this.onChange(false);
      }
      return result;
    } catch (err) {
      if (!this.down) {
        this.down = true;
        this.onChange(true, err);
      }
      return fallback();
    }
  }
}
