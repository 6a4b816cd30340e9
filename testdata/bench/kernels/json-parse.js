// JSON.parse of a 1 MB array of 5,000 rows.
function setup() {
  const rows = [];
  for (let i = 0; i < 5000; i++) rows.push({ id: "ORD-" + i, name: "Customer " + i, status: i % 3 ? "paid" : "pending", amount: i * 1.5, tags: ["a", "b"] });
  return JSON.stringify(rows);
}
function run(text) {
  return JSON.parse(text).length;
}
