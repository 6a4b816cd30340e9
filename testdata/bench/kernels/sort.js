// Sorting 100,000 numbers with a comparator.
function setup() {
  const a = [];
  let x = 7;
  for (let i = 0; i < 1e5; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    a.push(x);
  }
  return a;
}
function run(a) {
  return a.slice().sort((p, q) => p - q)[0];
}
