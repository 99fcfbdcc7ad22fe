// build.mjs: bundle the replay page into one HTML template with everything inlined.
//
// esbuild bundles src/main.js with three.js and OrbitControls into one minified script; the
// script and src/style.css are written into src/page.html, which keeps the placeholder
// /*CONTACTSIM_REPLAY_DATA*/ where the contactsim writer puts the data. The result needs no
// network and no server: it is opened from disk.
//
// usage: node build.mjs --out FILE
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const i = process.argv.indexOf('--out');
if (i < 0 || !process.argv[i + 1]) {
  console.error('usage: node build.mjs --out FILE');
  process.exit(2);
}
const out = process.argv[i + 1];

const result = await esbuild.build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  write: false,
  legalComments: 'eof',
  logLevel: 'warning',
});
let script = result.outputFiles[0].text;
// the script sits inside a <script> element: a "</script" in it would end the element early
script = script.replace(/<\/script/gi, '<\\/script');
const css = readFileSync(join(here, 'src', 'style.css'), 'utf8');
const page = readFileSync(join(here, 'src', 'page.html'), 'utf8');
// split/join rather than replace, so that "$" in the script is not a replacement pattern
const html = page.split('/*STYLE*/').join(css).split('/*SCRIPT*/').join(script);
if (!html.includes('/*CONTACTSIM_REPLAY_DATA*/')) {
  console.error('build.mjs: the page lost its data placeholder');
  process.exit(1);
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
