export function tag(id: string): string {
  return "order-" + id;
}
