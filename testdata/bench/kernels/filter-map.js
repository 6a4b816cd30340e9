// filter then map over 1 million numbers.
function setup() {
  return Array.from({ length: 1e6 }, (_, i) => i);
}
function run(a) {
  return a.filter((x) => x % 2 === 0).map((x) => x * 2).length;
}
