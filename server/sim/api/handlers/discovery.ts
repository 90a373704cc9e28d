/** Discovery requests: `/api`, `/apis` (legacy or aggregated, as the client asks), a group, a group version. */

import type { ServerResponse } from 'node:http';
import type { ServerContext } from '../context.ts';
import { AGGREGATED_CONTENT_TYPE, aggregatedDiscovery, apiGroup, legacyCoreVersions, legacyGroupList, resourceList } from '../discovery.ts';
import type { ApiPath } from '../request.ts';
import { wantsAggregatedDiscovery } from '../request.ts';
import { sendJson } from '../respond.ts';
import { notFoundPath } from '../status.ts';

export type DiscoveryPath = Extract<ApiPath, { type: 'core-root' | 'groups-root' | 'group' | 'group-version' }>;

export function serveDiscovery({ registry, address }: ServerContext, res: ServerResponse, api: DiscoveryPath, accept: string | undefined): void {
  switch (api.type) {
    case 'core-root':
      if (wantsAggregatedDiscovery(accept)) return sendJson(res, 200, aggregatedDiscovery(registry, true), {}, AGGREGATED_CONTENT_TYPE);
      return sendJson(res, 200, legacyCoreVersions(address()));
    case 'groups-root':
      if (wantsAggregatedDiscovery(accept)) return sendJson(res, 200, aggregatedDiscovery(registry, false), {}, AGGREGATED_CONTENT_TYPE);
      return sendJson(res, 200, legacyGroupList(registry));
    case 'group': {
      const doc = apiGroup(registry, api.group);
      if (!doc) throw notFoundPath();
      return sendJson(res, 200, doc);
    }
    case 'group-version': {
      const list = resourceList(registry, api.group, api.version);
      if (!list) throw notFoundPath();
      return sendJson(res, 200, list);
    }
  }
}
