/**
 * The second Ctrl-C of `add --from` quits at once with 130 on every platform:
 * POSIX raises the signal again (the shell reports 130), Windows would turn that
 * into exit 1, so there the process exits with 130 itself. The platform is
 * injected; the exit and the raise are caught, so the test process lives on.
 * (test/platforms/windows-package.test.ts checks it under wine, for real.)
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { installSignals } from "../../src/bulk/signals.js";
import { createTestIO } from "../test-io.js";

afterEach(() => {
  vi.restoreAllMocks();
});

function twoCtrlCs(platform: NodeJS.Platform) {
  const exit = vi.spyOn(process, "exit").mockImplementation(() => undefined as never);
  const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
  const io = createTestIO();
  let stops = 0;
  const remove = installSignals(true, io, () => stops++, platform);
  try {
    process.emit("SIGINT", "SIGINT");
    expect(stops).toBe(1);
    expect(exit).not.toHaveBeenCalled();
    expect(kill).not.toHaveBeenCalled();
    process.emit("SIGINT", "SIGINT");
  } finally {
    remove();
  }
  return { exit, kill, stops, stderr: io.err() };
}

describe("a second Ctrl-C during add --from", () => {
  it("exits with 130 on Windows", () => {
    const { exit, kill, stops, stderr } = twoCtrlCs("win32");
    expect(stops).toBe(1);
    expect(exit).toHaveBeenCalledWith(130);
    expect(kill).not.toHaveBeenCalled();
    expect(stderr).toContain("Ctrl-C again to quit at once");
  });

  it("raises SIGINT again on Linux, so the shell sees a death by Ctrl-C", () => {
    const { exit, kill } = twoCtrlCs("linux");
    expect(kill).toHaveBeenCalledWith(process.pid, "SIGINT");
    expect(exit).not.toHaveBeenCalled();
  });
});
