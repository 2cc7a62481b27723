// Lint rules that make a wrong import a build error (STYLE.md section 1): the path tells you the runtime.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// Bare builtin names are matched exactly (as `paths`); a pattern like 'events' would also hit '../contract/events'.
const nodeBuiltinPaths = ['fs', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'zlib', 'url', 'util', 'events', 'tls'];

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
      'no-restricted-imports': ['error', { paths: [...nodeBuiltinPaths, 'electron', 'react', 'react-dom'], patterns: ['node:*', '../electron/*', '../../electron/*', '../renderer/*', '../../renderer/*'] }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...nodeBuiltinPaths, 'electron', 'better-sqlite3', 'ssh2', 'ws'], patterns: ['node:*', '../electron/*', '../../electron/*', '../../../electron/*'] }],
    },
  },
  {
    files: ['electron/services/**/*.ts', 'electron/sim/**/*.ts', 'electron/cli/**/*.ts', 'electron/web/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only electron/main and electron/preload may import electron (DESIGN.md section 1).' }] }],
    },
  },
);
