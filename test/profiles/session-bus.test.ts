import { describe, expect, it } from "vitest";
import { busSocket } from "../../src/profiles/session-bus.js";

describe("the socket of a D-Bus address", () => {
  it.each([
    ["unix:path=/run/user/1000/bus", "/run/user/1000/bus"],
    ["unix:path=/tmp/dbus-x,guid=0123abcd", "/tmp/dbus-x"],
    ["unix:abstract=/tmp/dbus-y,guid=0123abcd", "\0/tmp/dbus-y"],
    ["unix:path=/tmp/a%20b%2cc", "/tmp/a b,c"],
    ["tcp:host=127.0.0.1,port=1;unix:path=/tmp/second", "/tmp/second"],
  ])("%j is %j", (address, socket) => {
    expect(busSocket(address)).toBe(socket);
  });

  it("is none for an address petstore cannot check (tcp, launchd)", () => {
    expect(busSocket("tcp:host=127.0.0.1,port=1")).toBeUndefined();
    expect(busSocket("launchd:env=DBUS_LAUNCHD_SESSION_BUS_SOCKET")).toBeUndefined();
  });
});
