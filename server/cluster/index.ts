/** Cluster connections: kubeconfig contexts, discovery, list+watch per kind, raw API calls. */
export { ClusterConnection, type ClusterClient, type ObjectRef, type DeleteObjectOptions, type ClusterSink, type ConnectionInfo, type KindState, type ConnectionOptions } from './connection.ts';
export { loadClusterConfigs, hasKubeconfig, kubeconfigFiles, inCluster, inClusterConfig, serviceAccountDir, IN_CLUSTER, IN_CLUSTER_NAME, type ClusterConfig } from './kubeconfig.ts';
export { ConfigWatcher, credentialFiles, fingerprint } from './config-watch.ts';
export { apiRequest, getJson, streamLines, streamText, closeConnections, serverUrl, proxyOf, ApiError } from './http.ts';
export { discover, resourcePath } from './discovery.ts';
export { ListWatch, type ListWatchOptions, type ListWatchState } from './list-watch.ts';
export { trimObject } from './trim.ts';
export { groupKind, type ActAs, type ClusterObject, type ServedResource, type WatchEventType } from './types.ts';
