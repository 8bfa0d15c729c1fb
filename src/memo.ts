// The answers of a pure function of a string, kept for the next call with the same string: for
// inputs that repeat (a client's address, a host name, an Accept-Encoding value, a language tag,
// a charset label).
// Bounded: when `kept` answers are held, they are all dropped and kept again from there on. That
// costs one miss per distinct input after a clear, and needs no bookkeeping on a hit.

export function memoized<T>(compute: (input: string) => T, kept: number): (input: string) => T {
  const answers = new Map<string, T>();
  return (input) => {
    const known = answers.get(input);
    // One lookup on a hit; `has` only tells a kept `undefined` from none.
    if (known !== undefined || answers.has(input)) return known as T;
    const answer = compute(input);
    if (answers.size >= kept) answers.clear();
    answers.set(input, answer);
    return answer;
  };
}
