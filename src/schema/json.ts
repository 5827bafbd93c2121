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
import { stringify } from "lossless-json";
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
const MAX_INTEGER_DIGITS = 20;

/** `elementStarts`, when given, gets the offset where each element of a top-level array starts. */
export function parseJson(text: string, elementStarts?: number[]): JsonValue {
  return new Parser(text, elementStarts).parseDocument();
}

/** At most 60 characters of a text, in double quotes: for messages that show what was sent. */
export const quoted = (text: string) =>
  text.length > 60 ? JSON.stringify(text.slice(0, 57)) + "..." : JSON.stringify(text);

/** Line and column (both 1-based) of a character offset. */
export function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const end = Math.min(position, text.length);
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) line++;
  // lastIndexOf reads a negative start as 0: a newline at 0 is not before position 0.
  const lineStart = end === 0 ? 0 : text.lastIndexOf("\n", end - 1) + 1;
  return { line, column: end - lineStart + 1 };
}

function describeChar(text: string, position: number): string {
  if (position >= text.length) return "end of input";
  const code = text.charCodeAt(position);
  if (code < 0x20) return `control character U+${code.toString(16).padStart(4, "0").toUpperCase()}`;
  return `'${text[position]}'`;
}

/**
 * A string literal is read as runs of characters JSON allows unescaped (a control
 * character must be escaped) between valid escapes, one pattern at a time: one
 * pattern for the whole literal keeps a backtracking frame per run, and overflowed
 * the stack at 10 million escapes.
 */
// eslint-disable-next-line no-control-regex -- the control characters JSON refuses in a string
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const LITERAL = /true|false|null/y;
/** A JSON number: its integer part, then the fraction and exponent that make it a double. */
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

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

  private unexpected(expected: string, position = this.pos): never {
    this.fail(`Unexpected ${describeChar(this.text, position)}, expected ${expected}`, position);
  }

  private skipWhitespace(): void {
    let c = this.text.charCodeAt(this.pos);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = this.text.charCodeAt(++this.pos);
  }

  private parseValue(): JsonValue {
    const c = this.text[this.pos];
    if (c === "{") return this.parseObject();
    if (c === "[") return this.parseArray();
    if (c === '"') return this.parseString();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.parseNumber();
    LITERAL.lastIndex = this.pos;
    const word = LITERAL.exec(this.text)?.[0];
    if (word === undefined) return this.unexpected("a JSON value");
    this.pos += word.length;
    return word === "null" ? null : word === "true";
  }

  /** Past the opening bracket of a container; true when `close` follows at once (it is empty). */
  private open(close: string): boolean {
    if (++this.depth > MAX_DEPTH)
      this.fail(`Nesting deeper than ${MAX_DEPTH} levels`, this.pos, true);
    this.pos++;
    this.skipWhitespace();
    return this.text[this.pos] === close && this.closed();
  }

  private closed(): true {
    this.pos++;
    this.depth--;
    return true;
  }

  /** After a member or an element: false when a ',' follows, true when `close` ends the container. */
  private atEnd(close: string): boolean {
    this.skipWhitespace();
    const c = this.text[this.pos];
    if (c === close) return this.closed();
    if (c !== ",") this.unexpected(`',' or '${close}'`);
    this.pos++;
    this.skipWhitespace();
    return false;
  }

  private parseObject(): JsonValue {
    const result: Record<string, JsonValue> = Object.create(null);
    if (this.open("}")) return result;
    do {
      if (this.text[this.pos] !== '"') this.unexpected("a string key in double quotes");
      const keyPosition = this.pos;
      const key = this.parseString();
      if (Object.hasOwn(result, key)) this.fail(`Duplicate key ${quoted(key)}`, keyPosition);
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") this.unexpected("':' after the key");
      this.pos++;
      this.skipWhitespace();
      this.memberKey = key;
      result[key] = this.parseValue();
    } while (!this.atEnd("}"));
    return result;
  }

  private parseArray(): JsonValue {
    const result: JsonValue[] = [];
    if (this.open("]")) return result;
    do {
      this.memberKey = undefined;
      if (this.depth === 1) this.elementStarts?.push(this.pos);
      result.push(this.parseValue());
    } while (!this.atEnd("]"));
    return result;
  }

  private parseString(): string {
    const { text } = this;
    const start = this.pos;
    let end = start + 1;
    for (;;) {
      PLAIN_RUN.lastIndex = end;
      PLAIN_RUN.test(text);
      ESCAPE.lastIndex = PLAIN_RUN.lastIndex;
      if (!ESCAPE.test(text)) break;
      end = ESCAPE.lastIndex;
    }
    end = PLAIN_RUN.lastIndex;
    const c = text[end];
    if (c === undefined || (c === "\\" && end + 1 >= text.length)) {
      this.fail("Unterminated string", start);
    }
    if (c === "\\") {
      const escape = text[end + 1] === "u" ? "\\u escape" : `escape \\${text[end + 1]}`;
      this.fail(`Invalid ${escape} in string`, end);
    }
    if (c !== '"') this.fail(`Unexpected ${describeChar(text, end)} in string`, end);
    this.pos = end + 1;
    const literal = text.slice(start, this.pos);
    // The pattern has checked every escape; JSON.parse decodes them.
    return literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
  }

  private parseNumber(): number | bigint {
    const { text } = this;
    const start = this.pos;
    NUMBER.lastIndex = start;
    const match = NUMBER.exec(text);
    if (match === null) return this.unexpected("a digit", start + 1);
    const [literal, integerPart, fraction, exponent] = match;
    const end = start + literal.length;
    const next = text[end];
    if (next !== undefined && next >= "0" && next <= "9") {
      this.fail("Leading zeros are not allowed in numbers", start);
    }
    if (next === "." && fraction === undefined) {
      this.unexpected("a digit after the decimal point", end + 1);
    }
    if ((next === "e" || next === "E") && exponent === undefined) {
      const sign = text[end + 1] === "+" || text[end + 1] === "-";
      this.unexpected("a digit in the exponent", end + (sign ? 2 : 1));
    }
    this.pos = end;
    if (fraction !== undefined || exponent !== undefined) return Number(literal);
    const digits = integerPart!.length;
    if (digits <= MAX_INTEGER_DIGITS) return BigInt(literal);
    const where = this.memberKey === undefined ? "in an array" : `for ${quoted(this.memberKey)}`;
    const reason = `Integer of ${digits} digits ${where} is out of int64 range (at most ${MAX_INTEGER_DIGITS} digits are read)`;
    return this.fail(reason, start, true);
  }
}

/**
 * JSON text for values that may hold bigints (written as exact digits), indented
 * as `JSON.stringify` indents.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  return stringify(value, undefined, indent) ?? "null";
}
