# One image for every askgate process: `serve` (the HTTP doors), `worker` (the queues) or the two in one.
# Build stage: install with dev dependencies, compile, then drop them.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The SDK is an npm workspace: npm ci links it into node_modules only when its package.json is there.
COPY packages/askgate-sdk/package.json ./packages/askgate-sdk/
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.web.json ./
COPY packages/askgate-sdk ./packages/askgate-sdk
COPY src ./src
COPY channels ./channels
COPY forms ./forms
COPY web ./web
COPY bench ./bench
COPY test ./test
COPY tools ./tools
RUN npm run build && npm prune --omit=dev

# Run stage: the build output, production dependencies and the stylesheets the inbox serves; no sources or tests.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# node_modules/askgate-sdk links to the workspace: its manifest and build, which the gateway imports.
COPY --from=build /app/packages/askgate-sdk/package.json ./packages/askgate-sdk/
COPY --from=build /app/packages/askgate-sdk/dist ./packages/askgate-sdk/dist
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/channels ./dist/channels
COPY --from=build /app/dist/forms ./dist/forms
COPY --from=build /app/dist/web ./dist/web
COPY web/*.css ./web/
# The docs the landing page links and serves at /docs/*.md.
COPY docs ./docs
USER node
EXPOSE 8080
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["serve"]
