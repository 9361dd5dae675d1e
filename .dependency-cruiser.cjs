/** Layer rules of askgate (docs/architecture.md). `npm run lint` runs them. */
const ADAPTERS = "^packages/askgate-sdk/src/adapters/(langchain|ai-sdk|openai-agents)\\.ts$";
const SERVICES = "^src/(doors|callback|mcp|runs|park|confirmations|verifiers)/";
module.exports = {
  forbidden: [
    {
      name: "core-imports-core-and-forms-only",
      comment: "The core knows no adapter, service or channel: it imports only itself and forms/.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^(src/(?!core/)|channels/|web/)" },
    },
    {
      name: "channels-reach-src-through-the-core",
      comment:
        "Channels import from src/ only the core, observability, config-env and pages. src/pages is the page shell " +
        "every browser app is served as (the inbox door's and the web chat's): HTML and HTTP headers, which the core " +
        "must not know, shared by a door and a channel, so it lives beside both and imports nothing of the gateway.",
      severity: "error",
      from: { path: "^channels/" },
      to: { path: "^src/(?!core/|observability/|pages/|config-env\\.ts$)" },
    },
    {
      name: "pages-import-nothing-of-the-gateway",
      comment: "The page shell channels may use stays a leaf: it imports nothing of src/, channels/ or forms/.",
      severity: "error",
      from: { path: "^src/pages/" },
      to: { path: "^(src/(?!pages/)|channels/|forms/)" },
    },
    {
      name: "sdk-imports-only-itself",
      comment:
        "The askgate-sdk package speaks HTTP only: it imports its own modules and Node's built-ins, nothing of the " +
        "gateway and no npm package (it has no dependency).",
      severity: "error",
      from: { path: "^packages/askgate-sdk/src/", pathNot: ADAPTERS },
      to: { path: "^(?!packages/askgate-sdk/src/)", dependencyTypesNot: ["core"] },
    },
    {
      name: "sdk-adapters-import-their-framework-as-types-only",
      comment:
        "The SDK's three framework adapters (askgate-sdk/langchain, /ai-sdk, /openai-agents) are the one exception: " +
        "each names its framework's types (an optional peer dependency), so a user's compiler checks what they pass " +
        "and get back. Types only: nothing of a framework is loaded at run time, so the SDK and the other adapters " +
        "work without it, and the package still installs nothing but itself.",
      severity: "error",
      from: { path: ADAPTERS },
      to: { path: "^(?!packages/askgate-sdk/src/)", dependencyTypesNot: ["core", "type-only"] },
    },
    {
      name: "sdk-adapters-name-only-their-frameworks",
      comment: "An adapter's type imports come from the three frameworks' packages and nowhere else.",
      severity: "error",
      from: { path: ADAPTERS },
      to: { path: "^(?!packages/askgate-sdk/src/|node_modules/(langchain|ai|@openai/agents)/)", dependencyTypesNot: ["core"] },
    },
    {
      name: "gateway-uses-the-sdk-as-a-package",
      comment:
        "The gateway imports the SDK by its package name (askgate-sdk, its built declarations), never its sources: " +
        "a relative import would compile the SDK a second time into the gateway's dist.",
      severity: "error",
      from: { path: "^(src|channels|forms)/" },
      to: { path: "^packages/askgate-sdk/src/" },
    },
    {
      name: "redis-and-postgres-only-in-the-store",
      severity: "error",
      from: { path: "^(?!src/store/)" },
      to: { path: "node_modules/(ioredis|pg)/" },
    },
    {
      name: "bullmq-only-in-the-queue",
      severity: "error",
      from: { path: "^(?!src/queue/)" },
      to: { path: "node_modules/bullmq/" },
    },
    {
      name: "services-and-channels-use-ports",
      comment: "Services and channels never import the store or queue adapters; the composition root wires them.",
      severity: "error",
      from: { path: [SERVICES, "^channels/"] },
      to: { path: "^src/(store|queue)/" },
    },
    {
      name: "no-circular",
      comment:
        "No module circle that runs code both ways; a circle closed only by `import type` is erased at compile time " +
        "and costs nothing at load (tools/folder-cycles.mjs still counts it between folders).",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
};
