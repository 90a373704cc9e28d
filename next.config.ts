import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The Kubernetes client is Node-only and large; keep it out of the server bundle.
  serverExternalPackages: ['@kubernetes/client-node'],
  // Keep `next dev` from writing files into the project.
  agentRules: false,
  typescript: { tsconfigPath: 'tsconfig.json' },
};

export default nextConfig;
