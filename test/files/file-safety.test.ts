/**
 * The file-safety module on both of its platform branches, run here on Linux:
 * the Windows branch has no O_NOFOLLOW (so the kernel would follow a link), and
 * must refuse links by its own checks. Real files in a temporary directory.
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/files/atomic-write.js";
import {
  noFollowFlags,
  openNoFollow,
  openNoFollowSync,
  ownershipProblem,
  privateByDefault,
  syncDirectory,
  unknownReaders,
  type FilePlatform,
} from "../../src/files/file-safety.js";

const POSIX: FilePlatform = { os: "posix", uid: 1000 };
const WINDOWS: FilePlatform = { os: "win32", uid: undefined };
const { O_CREAT, O_EXCL, O_RDONLY, O_RDWR, O_WRONLY } = constants;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-file-safety-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function codeOf(action: () => unknown): string | undefined {
  try {
    closeSync(action() as number);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return undefined;
}

async function asyncCodeOf(action: () => Promise<{ close(): Promise<void> }>) {
  try {
    await (await action()).close();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return undefined;
}

describe.each([
  ["POSIX", POSIX],
  ["Windows", WINDOWS],
])("opening without following a link, %s branch", (_name, platform) => {
  it("refuses a symlink to a file with ELOOP, and the file is neither read nor changed", async () => {
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "precious\n");
    const link = join(dir, "link");
    symlinkSync(victim, link);
    for (const flags of [O_RDONLY, O_RDWR, O_RDWR | O_CREAT]) {
      expect(codeOf(() => openNoFollowSync(link, flags, 0o600, platform))).toBe("ELOOP");
      expect(await asyncCodeOf(() => openNoFollow(link, flags, 0o600, platform))).toBe("ELOOP");
    }
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
  });

  it("creates nothing through a dangling symlink", async () => {
    const target = join(dir, "created-through-the-link");
    const link = join(dir, "dangling");
    symlinkSync(target, link);
    expect(codeOf(() => openNoFollowSync(link, O_WRONLY | O_CREAT, 0o600, platform))).toBe("ELOOP");
    expect(codeOf(() => openNoFollowSync(link, O_WRONLY | O_CREAT | O_EXCL, 0o600, platform))).toBe(
      "EEXIST",
    );
    expect(await asyncCodeOf(() => openNoFollow(link, O_RDWR | O_CREAT, 0o600, platform))).toBe(
      "ELOOP",
    );
    expect(existsSync(target)).toBe(false);
  });

  it("opens a regular file, and creates a new one", async () => {
    const file = join(dir, "plain.txt");
    writeFileSync(file, "text");
    expect(codeOf(() => openNoFollowSync(file, O_RDONLY, undefined, platform))).toBeUndefined();
    const created = join(dir, "new.txt");
    expect(
      await asyncCodeOf(() => openNoFollow(created, O_WRONLY | O_CREAT | O_EXCL, 0o600, platform)),
    ).toBeUndefined();
    expect(lstatSync(created).isFile()).toBe(true);
  });
});

describe("the flags of each platform", () => {
  it("add O_NOFOLLOW and O_NONBLOCK on POSIX only", () => {
    expect(noFollowFlags(O_RDONLY, POSIX)).toBe(
      O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    expect(noFollowFlags(O_RDONLY, WINDOWS)).toBe(O_RDONLY);
  });

  it("POSIX: a FIFO at the name does not block the open", () => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    expect(codeOf(() => openNoFollowSync(fifo, O_RDONLY, undefined, POSIX))).toBeUndefined();
  });
});

describe("owner and permissions", () => {
  const mine = { uid: 1000, mode: 0o100600 };

  it("POSIX: another user's file, and one others may write, are problems", () => {
    expect(ownershipProblem(mine, {}, POSIX)).toBeUndefined();
    expect(ownershipProblem({ uid: 4242, mode: 0o100600 }, {}, POSIX)).toEqual({
      kind: "owner",
      uid: 4242,
      mine: 1000,
    });
    expect(ownershipProblem({ uid: 0, mode: 0o100600 }, {}, POSIX)?.kind).toBe("owner");
    expect(
      ownershipProblem({ uid: 0, mode: 0o100600 }, { rootMayOwn: true }, POSIX),
    ).toBeUndefined();
    expect(ownershipProblem({ uid: 1000, mode: 0o100620 }, {}, POSIX)).toEqual({
      kind: "writable-by-others",
      mode: 0o620,
    });
    expect(
      ownershipProblem({ uid: 1000, mode: 0o100666 }, { othersMay: "write" }, POSIX),
    ).toBeUndefined();
    expect(ownershipProblem({ uid: 1000, mode: 0o100640 }, {}, POSIX)).toBeUndefined();
    expect(
      ownershipProblem({ uid: 1000, mode: 0o100640 }, { othersMay: "nothing" }, POSIX),
    ).toEqual({ kind: "readable-by-others", mode: 0o640 });
  });

  it("Windows: nothing can be known (every file reads 0666 and uid 0), so nothing is claimed", () => {
    expect(
      ownershipProblem({ uid: 0, mode: 0o100666 }, { othersMay: "nothing" }, WINDOWS),
    ).toBeUndefined();
  });

  it("Windows: a path is private by default inside the user's profile directory only", () => {
    const env = { USERPROFILE: "C:\\Users\\amy" };
    expect(privateByDefault("C:\\Users\\amy\\AppData\\Roaming\\petstore", env, WINDOWS)).toBe(true);
    expect(privateByDefault("c:\\users\\AMY\\pets.json.ca-key.pem", env, WINDOWS)).toBe(true);
    expect(privateByDefault("C:\\Users\\amy", env, WINDOWS)).toBe(false);
    expect(privateByDefault("C:\\Users\\amyx\\pets.json", env, WINDOWS)).toBe(false);
    expect(privateByDefault("C:\\Users\\amy\\..\\bob\\pets.json", env, WINDOWS)).toBe(false);
    expect(privateByDefault("D:\\shelter\\pets.json", env, WINDOWS)).toBe(false);
    expect(privateByDefault("Z:\\tmp\\pets.json", env, WINDOWS)).toBe(false);
    expect(privateByDefault("C:\\Users\\amy\\x", {}, WINDOWS)).toBe(false);
    expect(privateByDefault("/tmp/anything", {}, POSIX)).toBe(true);
  });

  it("Windows: says so when who may read a file cannot be known; POSIX: nothing to say", () => {
    const env = { USERPROFILE: "C:\\Users\\amy" };
    expect(unknownReaders("D:\\shelter\\config.json", env, WINDOWS)).toBe(
      "on Windows, who may read D:\\shelter\\config.json cannot be checked (that is its folder's ACL), and it is outside your profile directory, which is private by default",
    );
    expect(
      unknownReaders("C:\\Users\\amy\\AppData\\Roaming\\petstore\\config.json", env, WINDOWS),
    ).toBeUndefined();
    expect(unknownReaders("/srv/config.json", {}, POSIX)).toBeUndefined();
  });
});

describe("flushing a directory", () => {
  it("flushes a real directory on both branches", async () => {
    expect(await syncDirectory(dir, POSIX)).toBe(true);
    expect(await syncDirectory(dir, WINDOWS)).toBe(true);
  });

  // procfs answers fsync with EINVAL, one of the answers Windows gives for a directory.
  it("Windows: a directory the system refuses to flush is skipped; POSIX: it is an error", async () => {
    expect(await syncDirectory("/proc", WINDOWS)).toBe(false);
    await expect(syncDirectory("/proc", POSIX)).rejects.toMatchObject({ code: "EINVAL" });
  });

  it("any other failure is an error on both branches", async () => {
    for (const platform of [POSIX, WINDOWS]) {
      await expect(syncDirectory(join(dir, "missing"), platform)).rejects.toMatchObject({
        code: "ENOENT",
      });
    }
  });
});

describe("an atomic write", () => {
  it.each([
    ["POSIX", POSIX],
    ["Windows", WINDOWS],
  ])(
    "%s branch: replaces a symlink at the name, never its target, and leaves no temporary file",
    async (_name, platform) => {
      const victim = join(dir, "victim.txt");
      writeFileSync(victim, "precious\n");
      const file = join(dir, "config.json");
      symlinkSync(victim, file);
      await writeFileAtomic(file, ["{}\n"], { mode: 0o600, platform });
      expect(lstatSync(file).isFile()).toBe(true);
      expect(lstatSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, "utf8")).toBe("{}\n");
      expect(readFileSync(victim, "utf8")).toBe("precious\n");
      expect(readdirSync(dir).sort()).toEqual(["config.json", "victim.txt"]);
    },
  );
});
