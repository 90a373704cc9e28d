import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // No X-Powered-By: the server does not advertise what it runs.
  poweredByHeader: false,
  // The Kubernetes client is Node-only and large; keep it out of the server bundle.
  serverExternalPackages: ['@kubernetes/client-node'],
  // Keep `next dev` from writing files into the project.
  agentRules: false,
  // Type errors are the test suite's job (`npm test` runs tsc over the whole project); the build
  // only compiles what the app imports.
  typescript: { tsconfigPath: 'tsconfig.json', ignoreBuildErrors: true },
};

export default nextConfig;
