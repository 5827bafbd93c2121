/**
 * Lossless JSON for int64 data.
 *
 * `JSON.parse` turns 9223372036854775807 into 9223372036854776000, and Node 20
 * has no reviver access to the source text. This parser keeps every integer
 * literal as a `bigint` (fractions and exponents stay `number`), builds objects
 * without a prototype so `__proto__` or `constructor` keys are plain data, refuses
 * duplicate keys, limits nesting, and names the line and column of any error.
 *
 * An integer literal of more than 20 digits is refused before it is converted:
 * no int64 has more than 19, and `BigInt` of a million digits (valid JSON that
 * fits in a 1 MiB body) would hold the thread for a long time. 20 digits are
 * still read, so a value just past int64 gets the validator's range message.
 */
import { ERROR_KIND, KindedError } from "./kinded-error.js";

export class JsonSyntaxError extends KindedError {
  static override [ERROR_KIND] = "JsonSyntaxError";
  constructor(
    readonly reason: string,
    readonly position: number,
    readonly line: number,
    readonly column: number,
    /** Valid JSON refused by a limit of this parser (nesting, integer length). */
    readonly limit = false,
  ) {
    super(`${reason} at line ${line}, column ${column}`);
  }
}

export type JsonValue =
  null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

const MAX_DEPTH = 256;
/** Digits of the longest integer literal read (int64 needs 19; one more keeps range errors). */
export const MAX_INTEGER_DIGITS = 20;

/** `elementStarts`, when given, gets the offset where each element of a top-level array starts. */
export function parseJson(text: string, elementStarts?: number[]): JsonValue {
  return new Parser(text, elementStarts).parseDocument();
}

/** Line and column (both 1-based) of a character offset. */
export function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(position, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

function describeChar(text: string, position: number): string {
  if (position >= text.length) return "end of input";
  const ch = text[position]!;
  const code = ch.charCodeAt(0);
  if (code < 0x20) return `control character U+${code.toString(16).padStart(4, "0").toUpperCase()}`;
  return `'${ch}'`;
}

class Parser {
  private pos = 0;
  private depth = 0;
  /** The key whose value is being read; undefined for an array element or the document. */
  private memberKey: string | undefined;
  constructor(
    private readonly text: string,
    private readonly elementStarts?: number[],
  ) {}

  parseDocument(): JsonValue {
    this.skipWhitespace();
    if (this.pos >= this.text.length) this.fail("Unexpected end of input: the document is empty");
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.pos < this.text.length) {
      this.fail(`Unexpected ${describeChar(this.text, this.pos)} after the end of the JSON value`);
    }
    return value;
  }

  private fail(reason: string, position = this.pos, limit = false): never {
    const { line, column } = lineAndColumn(this.text, position);
    throw new JsonSyntaxError(reason, position, line, column, limit);
  }

  private unexpected(expected: string): never {
    if (this.pos >= this.text.length) this.fail(`Unexpected end of input, expected ${expected}`);
    this.fail(`Unexpected ${describeChar(this.text, this.pos)}, expected ${expected}`);
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 10 || c === 13 || c === 9) pos++;
      else break;
    }
    this.pos = pos;
  }

  private parseValue(): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 123: // {
        return this.parseObject();
      case 91: // [
        return this.parseArray();
      case 34: // "
        return this.parseString();
      case 116: // t
        return this.parseLiteral("true", true);
      case 102: // f
        return this.parseLiteral("false", false);
      case 110: // n
        return this.parseLiteral("null", null);
      default:
        if (c === 45 || (c >= 48 && c <= 57)) return this.parseNumber();
        return this.unexpected("a JSON value");
    }
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length;
      return value;
    }
    return this.unexpected("a JSON value");
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) {
      this.fail(`Nesting deeper than ${MAX_DEPTH} levels`, this.pos, true);
    }
  }

  private parseObject(): JsonValue {
    this.enter();
    this.pos++;
    const result: Record<string, JsonValue> = Object.create(null);
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 125) {
      this.pos++;
      this.depth--;
      return result;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 34) this.unexpected("a string key in double quotes");
      const keyPosition = this.pos;
      const key = this.parseString();
      if (Object.prototype.hasOwnProperty.call(result, key)) {
        this.fail(`Duplicate key ${JSON.stringify(key)}`, keyPosition);
      }
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 58) this.unexpected("':' after the key");
      this.pos++;
      this.skipWhitespace();
      this.memberKey = key;
      result[key] = this.parseValue();
      if (!this.nextMember(125, "',' or '}'")) return result;
    }
  }

  /** After a member or an element: true when a ',' follows, false when `close` ends the container. */
  private nextMember(close: number, expected: string): boolean {
    this.skipWhitespace();
    const c = this.text.charCodeAt(this.pos);
    if (c === 44) {
      this.pos++;
      this.skipWhitespace();
      return true;
    }
    if (c !== close) this.unexpected(expected);
    this.pos++;
    this.depth--;
    return false;
  }

  private parseArray(): JsonValue {
    this.enter();
    this.pos++;
    const result: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 93) {
      this.pos++;
      this.depth--;
      return result;
    }
    for (;;) {
      this.memberKey = undefined;
      if (this.depth === 1) this.elementStarts?.push(this.pos);
      result.push(this.parseValue());
      if (!this.nextMember(93, "',' or ']'")) return result;
    }
  }

  private parseString(): string {
    const text = this.text;
    const start = ++this.pos;
    let pos = start;
    // Fast path: no escapes.
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        this.pos = pos + 1;
        return text.slice(start, pos);
      }
      if (c === 92) break;
      if (c < 0x20 || Number.isNaN(c)) {
        if (pos >= text.length) this.fail("Unterminated string", start - 1);
        this.fail(`Unexpected ${describeChar(text, pos)} in string`, pos);
      }
      pos++;
    }
    let out = text.slice(start, pos);
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        this.pos = pos + 1;
        return out;
      }
      if (c === 92) {
        const e = text.charCodeAt(pos + 1);
        switch (e) {
          case 34:
            out += '"';
            break;
          case 92:
            out += "\\";
            break;
          case 47:
            out += "/";
            break;
          case 98:
            out += "\b";
            break;
          case 102:
            out += "\f";
            break;
          case 110:
            out += "\n";
            break;
          case 114:
            out += "\r";
            break;
          case 116:
            out += "\t";
            break;
          case 117: {
            const hex = text.slice(pos + 2, pos + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("Invalid \\u escape in string", pos);
            out += String.fromCharCode(parseInt(hex, 16));
            pos += 4;
            break;
          }
          default:
            if (pos + 1 >= text.length) this.fail("Unterminated string", start - 1);
            this.fail(`Invalid escape \\${text[pos + 1]} in string`, pos);
        }
        pos += 2;
        continue;
      }
      if (c < 0x20 || Number.isNaN(c)) {
        if (pos >= text.length) this.fail("Unterminated string", start - 1);
        this.fail(`Unexpected ${describeChar(text, pos)} in string`, pos);
      }
      out += text[pos];
      pos++;
    }
  }

  private parseNumber(): number | bigint {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === 45) pos++;
    const first = text.charCodeAt(pos);
    if (first === 48) {
      pos++;
    } else if (first >= 49 && first <= 57) {
      while (isDigit(text.charCodeAt(pos))) pos++;
    } else {
      this.pos = pos;
      this.unexpected("a digit");
    }
    let integer = true;
    if (text.charCodeAt(pos) === 46) {
      integer = false;
      pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = pos;
        this.unexpected("a digit after the decimal point");
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const e = text.charCodeAt(pos);
    if (e === 101 || e === 69) {
      integer = false;
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 43 || sign === 45) pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.pos = pos;
        this.unexpected("a digit in the exponent");
      }
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    if (isDigit(text.charCodeAt(pos))) {
      this.pos = pos;
      this.fail("Leading zeros are not allowed in numbers", start);
    }
    this.pos = pos;
    if (!integer) return Number(text.slice(start, pos));
    const digits = pos - start - (text.charCodeAt(start) === 45 ? 1 : 0);
    if (digits > MAX_INTEGER_DIGITS) this.tooLong(digits, start);
    return BigInt(text.slice(start, pos));
  }

  private tooLong(digits: number, start: number): never {
    const key = this.memberKey;
    const where =
      key === undefined
        ? "in an array"
        : `for ${JSON.stringify(key.length > 60 ? key.slice(0, 57) + "..." : key)}`;
    this.fail(
      `Integer of ${digits} digits ${where} is out of int64 range (at most ${MAX_INTEGER_DIGITS} digits are read)`,
      start,
      true,
    );
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * JSON text for values that may hold bigints (written as exact digits). Object
 * keys keep their insertion order; `undefined` members are left out.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  return write(value, indent > 0 ? " ".repeat(indent) : "", "");
}

function write(value: unknown, unit: string, current: string): string {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      const inner = current + unit;
      const open = unit ? "\n" + inner : "";
      const sep = unit ? ",\n" + inner : ",";
      const close = unit ? "\n" + current : "";
      const colon = unit ? ": " : ":";
      if (Array.isArray(value)) {
        if (value.length === 0) return "[]";
        return "[" + open + value.map((v) => write(v, unit, inner)).join(sep) + close + "]";
      }
      const parts: string[] = [];
      for (const key of Object.keys(value)) {
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined || typeof member === "function") continue;
        parts.push(JSON.stringify(key) + colon + write(member, unit, inner));
      }
      if (parts.length === 0) return "{}";
      return "{" + open + parts.join(sep) + close + "}";
    }
    default:
      return "null";
  }
}
