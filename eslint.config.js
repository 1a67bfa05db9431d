import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Files that may import another module's face only: `up` is the way from them to the modules' folder. */
function facesOnly(files, up) {
  const folder = up.endsWith('modules/') ? '' : '(?!\\.)';
  return {
    files,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^${up}${folder}[^/]+/(?!index\\.js$).+`,
              message: 'Import another module through its face (its index.ts), not its files.',
            },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/', 'data/', 'node_modules/', 'test-artifacts/', 'console/dist/', 'clients/*/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
      // A manifest names its words and services in the kernel's interfaces (`interface
      // PermissionNames extends Names<typeof PERMISSIONS> {}`): declaration merging.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  // A module is used through its face, its index.ts: another module, or the house around them,
  // imports nothing else of it (docs/architecture.md). Tests may reach inside what they test.
  facesOnly(['src/modules/*/*.ts'], '\\.\\./'),
  facesOnly(['src/modules/*/*/*.ts'], '\\.\\./\\.\\./'),
  facesOnly(['src/*.ts'], '\\./modules/'),
  facesOnly(['src/{cli,db,http,kernel,lib}/**/*.ts'], '\\.\\./modules/'),
  // Small pieces (docs/architecture.md): no source file over 600 lines, no function (a service's
  // closure included) over 250 lines of code; tests aside.
  {
    files: ['src/**/*.ts', 'console/src/**/*.{ts,tsx}', 'shop/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines': ['error', { max: 600 }],
      'max-lines-per-function': ['error', { max: 250, skipComments: true, skipBlankLines: true }],
    },
  },
  // The developer console and the shop (React): the rules of hooks.
  { files: ['console/src/**/*.{ts,tsx}', 'shop/src/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
  {
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
