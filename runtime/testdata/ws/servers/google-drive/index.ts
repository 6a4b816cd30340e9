export { getDocument } from "./getDocument";
export { getSheet } from "./getSheet";
export { search } from "./search";
