// A loop of 10 million additions.
function setup() {
  return 1e7;
}
function run(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += i;
  return s;
}
