/**
 * What an API key looks like, for every place that reads one (a profile, the
 * environment, `auth login`): one word of visible ASCII. RFC 6750 allows less;
 * white space inside a key is a copy-paste slip.
 */
export function isKeyText(text: string): boolean {
  return /^[\x21-\x7e]+$/.test(text);
}
