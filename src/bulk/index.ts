/** The bulk add, loaded by `petstore add` only when one of its flags is given. */
export { runBulkCommand } from "./command.js";
