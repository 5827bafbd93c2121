export async function main(argv: string[]): Promise<number> {
  if (argv[0] === "--version") {
    process.stdout.write("0.1.0\n");
    return 0;
  }
  process.stderr.write("petstore: not implemented yet\n");
  return 1;
}
