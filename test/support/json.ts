// Parsed JSON that a test reads by path: an API server's answer, a recorded fixture, a rendered
// manifest. Its shape is what the test's assertions check, so a type for it would only restate
// them; these two names say so in one place instead of an `any` at every use.

// biome-ignore lint/suspicious/noExplicitAny: read by path; the assertions check the shape
export type Json = any;
export type JsonObject = Record<string, Json>;
