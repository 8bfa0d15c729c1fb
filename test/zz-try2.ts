import { createLinkPeek } from '../src/index.js';
const lp = createLinkPeek({});
const big = '<title>Big</title>' + 'x'.repeat(50 * 1024 * 1024);
for (let i = 0; i < 3; i++) {
  let t = performance.now(); const c0 = process.cpuUsage();
  const m = await lp.extract(big, { url: 'https://a.example/' });
  console.log(m.title, performance.now() - t, process.cpuUsage(c0));
}
const small = '<title>Small</title><body>';
for (let i = 0; i < 3; i++) { const t = performance.now(); await lp.extract(small, { url: 'https://a.example/' }); console.log('small', performance.now() - t); }
await lp.close();
