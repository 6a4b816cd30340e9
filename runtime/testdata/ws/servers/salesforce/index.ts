export * from "./query";
export * from "./updateRecord";
