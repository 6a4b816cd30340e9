// Building a string of 30,000 pieces with +=: quadratic in goja.
function setup() {
  return 30000;
}
function run(n) {
  let s = "";
  for (let i = 0; i < n; i++) s += "x" + i;
  return s.length;
}
