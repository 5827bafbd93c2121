export * from "./json.js";
export * from "./pet.js";
export * from "./validate.js";
