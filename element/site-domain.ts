// The domain a reader can trust, shown on every card whatever the page calls itself: its
// registrable domain ("paypa1-account-verify.example" under og:site_name "PayPal"), in Unicode
// unless a label could pass for another, which is shown as punycode as browsers do (Chromium's IDN
// display policy, simplified: one script per label, or Latin with Chinese, Japanese or Korean ones;
// and no label made only of a script's letters that look Latin, "аррӏе" in Cyrillic, outside that
// script's own top-level domains).
// The Public Suffix List itself is ~40 KB gzip, too big for the element's budget: a compact rule
// stands in for it (two labels, three under a country's common second level, "example.co.uk"),
// and the API's URL (WHATWG-parsed, so ASCII and lower-case) is its input.

/** Second levels under which a country code's registrations sit (co.uk, com.au, ac.jp, gov.br...). */
const COUNTRY_SECOND_LEVEL = /^(a?c|com?|edu|go[bv]?|mil|net?|nic|org?|sch|ltd|plc)$/;

/**
 * A letter's script, as the number of the group that matches it: 1 for the East Asian scripts
 * (Han, Hiragana, Katakana, Hangul, Bopomofo: they may sit beside each other and Latin in one
 * label), 2 for Latin, then the other scripts most used in domain names.
 */
const SCRIPT = new RegExp(
  ['Han|Hiragana|Katakana|Hangul|Bopomofo', ...'Latin Cyrillic Greek Armenian Hebrew Arabic Georgian Thai Devanagari'.split(' ')]
    .map((names) => `(${names.replace(/\w+/g, '\\p{sc=$&}')})`)
    .join('|'),
  'u',
);

/** RFC 3492 section 6.2 decoding of one label's punycode (after "xn--"); throws on a malformed one. */
function decodePunycode(input: string): string {
  const split = input.lastIndexOf('-');
  const output = split > 0 ? [...input.slice(0, split)] : [];
  let [code, index, bias] = [128, 0, 72];
  for (let at = split + 1; at < input.length;) {
    const old = index;
    for (let weight = 1, k = 36; ; k += 36) {
      const char = input.charCodeAt(at++);
      const digit = char > 47 && char < 58 ? char - 22 : (char | 32) - 97;
      if (!(digit >= 0 && digit < 36) || at > input.length) throw RangeError();
      index += digit * weight;
      const threshold = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
      if (digit < threshold) break;
      weight *= 36 - threshold;
    }
    // adapt(): integer arithmetic throughout, the first delta damped by 700.
    let delta = old ? (index - old) >> 1 : ((index - old) / 700) | 0;
    delta += (delta / (output.length + 1)) | 0;
    for (bias = 0; delta > 455; bias += 36) delta = (delta / 35) | 0;
    bias += ((36 * delta) / (delta + 38)) | 0;
    code += (index / (output.length + 1)) | 0;
    index %= output.length + 1;
    output.splice(index++, 0, String.fromCodePoint(code));
  }
  return output.join('');
}

/** Whether the letters of `label` belong to more than one script (East Asian ones with Latin excepted). */
function mixesScripts(label: string): boolean {
  // Latin is 2; a script not listed is 0; East Asian ones are 1.
  const scripts = (label.match(/\p{L}/gu) ?? []).map((letter) => SCRIPT.exec(letter)?.indexOf(letter, 1) ?? 0);
  const others = scripts.filter((script) => script != 1);
  return others.some((script) => script != others[0]) || (scripts.includes(1) && others.some((script) => script != 2));
}

/**
 * Chromium's whole-script confusables (components/url_formatter/spoof_checks/idn_spoof_checker.cc):
 * per script, its letters that look like Latin ones, then the ASCII top-level domains where its
 * names are at home (as is any TLD written in the script itself).
 */
const LOOKALIKES = [
  'Cyrl аысԁеԍһіюкјӏорԗԛѕԝхуъьҽпгѵѡ bg by kz pyc ru su ua uz',
  'Grek αικνρυωηοτ gr',
  'Armn ագզէլհյոսւօՙ am',
  'Geor იოყძხჽჿ ge',
  'Hebr דוחיןסװײ׳ﬦ il',
  'Thai บพเแ๐ th',
].map((line) => line.split(' '));

/** Common words that are whole-script confusables but spell no Latin word (Chromium's list). */
const HARMLESS_WORDS = 'секс как коса курс парк такий укроп сахарок покраска'.split(' ');

/** Whether `label` is made only of one script's Latin look-alikes, under a TLD (`tld`, `unicodeTld`) not of that script. */
function looksLatin(label: string, tld: string, unicodeTld: string): boolean {
  return (
    !HARMLESS_WORDS.includes(label) &&
    LOOKALIKES.some(([script, letters, ...tlds]) => {
      const ofScript = new RegExp(`\\p{sc=${script}}`, 'gu');
      const found = label.match(ofScript);
      return !!found && found.every((letter) => letters!.includes(letter)) && !tlds.includes(tld) && !unicodeTld.match(ofScript);
    })
  );
}

/**
 * The registrable domain of `url`'s host, as a reader should see it; an IP address as it is.
 * '' for no URL.
 */
export function siteDomain(url: string | null): string {
  if (!url) return '';
  const host = new URL(url).hostname;
  if (/^\[|^[\d.]+$/.test(host)) return host;
  const labels = host.split('.');
  const [second, top] = labels.slice(-2);
  const domain = labels.slice(top?.length == 2 && COUNTRY_SECOND_LEVEL.test(second!) ? -3 : -2);
  try {
    const unicode = domain.map((label) => (label.startsWith('xn--') ? decodePunycode(label.slice(4)) : label));
    const tld = unicode.length - 1;
    const spoof = unicode.some((label, at) => mixesScripts(label) || (at < tld && looksLatin(label, domain[tld]!, unicode[tld]!)));
    return spoof ? domain.join('.') : unicode.join('.');
  } catch {
    return domain.join('.');
  }
}
