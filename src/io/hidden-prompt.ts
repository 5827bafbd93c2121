/** Ctrl-C at a prompt (raw mode turns it into a byte, not a SIGINT). */
export function promptInterrupted(): Error {
  return Object.assign(new Error("interrupted"), { code: "ABORT_ERR" });
}

/** Reads one line in raw mode, echoing nothing; Ctrl-C or Ctrl-D before Enter rejects. */
export function readHiddenLine(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  prompt: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let line = "";
    const finish = (error?: Error) => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      output.write("\n");
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return finish();
        if (ch === "\u0003") return finish(promptInterrupted());
        if (ch === "\u0004") return finish(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") line = line.slice(0, -1);
        else line += ch;
      }
    };
    // Echo goes off before the prompt shows: what is typed after it never appears.
    input.setRawMode(true);
    output.write(prompt);
    input.resume();
    input.on("data", onData);
  });
}
