/**
 * Builds the dashboard into dist/web: hashed files under assets/ (served with a one-year cache), and no
 * inline script or style anywhere, because the server's CSP allows only same-origin files.
 */
import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    assetsDir: "assets",
    // The polyfill is an inline script; every browser the dashboard supports has modulepreload.
    modulePreload: { polyfill: false },
    // Inlined assets would become data: URLs in CSS/JS; keeping them files keeps the CSP simple.
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    target: "es2022",
  },
});
