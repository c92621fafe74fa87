// dependency-cruiser (`pnpm lint:cycles`, part of `pnpm lint` and so of CI's lint step): the import graph
// of both simulators and the packages (`apps/*/src packages/*/src`) has no cycle. A cycle means neither
// module can be read, tested or loaded without the other (issue 34 found operations → operation-changes →
// cluster-rotation → cluster-update → pool-requests → operations), and each new feature copied into such
// a knot makes it harder to undo.
// Type-only imports count too (`tsPreCompilationDeps`): they vanish at run time, but a reader still has
// to understand both files together, and a type-only cycle becomes a runtime one with the first value
// imported along the same edge. Break a cycle by moving the types to a types file or the function to the
// module that owns what it works on; never by silencing the rule here.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Import cycles (type-only ones included) are not allowed; see the comment at the top of this file.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Workspace packages resolve to their sources (the `@sims/source` condition, as in tsconfig), so a
    // cycle through a package is seen; third-party code is not followed.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@sims/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
