// How many times something happened over the last few seconds, in constant memory and time: a
// ring of one-second buckets (the load shedder's refusals and admissions for /healthz, which may
// count hundreds a second and must answer at once however many).

export class EventCount {
  private readonly buckets: number[];
  /** The second (of the clock) the newest bucket counts. */
  private second = -Infinity;

  constructor(
    private readonly seconds: number,
    private readonly now: () => number,
  ) {
    this.buckets = new Array<number>(seconds).fill(0);
  }

  add(): void {
    this.advance();
    this.buckets[this.second % this.seconds]!++;
  }

  /** Events per second over the window (the current, partly elapsed second included). */
  perSecond(): number {
    this.advance();
    return this.buckets.reduce((a, b) => a + b, 0) / this.seconds;
  }

  /** Empties the buckets of the seconds that have passed since the last event. */
  private advance(): void {
    const second = Math.floor(this.now() / 1000);
    if (second === this.second) return;
    const passed = Math.min(this.seconds, second - this.second);
    for (let s = 1; s <= passed; s++) this.buckets[(this.second + s) % this.seconds] = 0;
    this.second = second;
  }
}
