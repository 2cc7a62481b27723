// Lint rules that make a wrong import a build error (STYLE.md section 1): the path tells you the runtime.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'zlib', 'url', 'util', 'events', 'tls'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'release/**', 'bench/out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'off',
    },
  },
  {
    files: ['build/**/*.{js,mjs,cjs}', 'bench/**/*.{js,mjs,cjs}', 'assets/**/*.{js,mjs,cjs}', '*.config.{js,ts}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...nodeBuiltins, 'electron', 'react', 'react-dom', '../electron/*', '../../electron/*', '../renderer/*', '../../renderer/*'] }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...nodeBuiltins, 'electron', '../electron/*', '../../electron/*', '../../../electron/*', 'better-sqlite3', 'ssh2', 'ws'] }],
    },
  },
  {
    files: ['electron/services/**/*.ts', 'electron/sim/**/*.ts', 'electron/cli/**/*.ts', 'electron/web/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only electron/main and electron/preload may import electron (DESIGN.md section 1).' }] }],
    },
  },
);
