// `npm run lint`: typescript-eslint's type-aware recommended rules over the service, the scanner,
// the element, the client SDK, the scripts and the tests. Type-aware rules read the same
// tsconfig.json as `tsc --noEmit` (through the project service), so they see what tsc sees.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'generated/**', // written by `npm run generate`, never edited by hand
      '**/dist/**',
      '**/node_modules/**',
      // bench/ is its own package: its peers (other link-preview libraries) are installed on
      // demand by bench/install-peers.mjs, and `npm run typecheck:bench` checks it.
      'bench/**',
      'test/client/package-user/**', // a throwaway consumer project the client tests install into
      'test/.jsdoc-examples-*/**', // the README's and JSDoc's examples, written out by test/docs/jsdoc-examples while it runs
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Async methods implement promise-returning interfaces (stores, loaders, async iterables)
      // whose in-memory forms have nothing to await.
      '@typescript-eslint/require-await': 'off',
      // The sanitising regexes match control characters on purpose.
      'no-control-regex': 'off',
      // Koa's app.callback() and the message handlers settle their own promises; Node's servers
      // and emitters ignore the return value by design.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // An AbortSignal's reason is rethrown as given (it is an Error unless a caller chose otherwise).
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // Destructuring a key out to drop it (`const { url: _url, ...rest }`) is how a field is omitted.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // Koa types ctx.body, ctx.state and next() as any; middleware passes them through.
    files: ['src/api/**', 'src/assets/**'],
    rules: {
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // Tests read JSON response bodies as any once test/helpers/service.ts has validated them
    // against openapi.yaml, and destructure the closures that factories return.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Plain JavaScript (scripts, the test runner, this file) is outside tsconfig.json.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
);
