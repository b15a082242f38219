/** Tool `greet`: input is checked against manifest.json (required, types) before this runs. */
export default async function greet(input: { name: string; shout?: boolean }, ctx: SvcContext) {
  const key = `greeted:${input.name}`;
  const times = ((await storage.get<number>(key)) ?? 0) + 1;
  await storage.set(key, times);
  const greeting = String(ctx.settings.greeting ?? '안녕하세요');
  const message = `${greeting}, ${input.name}!`;
  console.log(`greeted ${input.name} (${times})`);
  return { message: input.shout ? message.toUpperCase() : message, times };
}
