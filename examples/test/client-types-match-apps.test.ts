import type { DeliverySettings as AppDeliverySettings, OutboundEntry } from '@sims/annotation-sim';
import type { Settings } from '@sims/cluster-sim';
import type { ClusterSimSettings, DeliverySettings, OutboundDelivery } from '@sims/sim-client';
import { describe, expectTypeOf, it } from 'vitest';

// @sims/sim-client keeps its own copies of the simulators' control-plane shapes (a client package must
// not depend on the apps). These checks make a drift between the copies and the apps fail `typecheck`.
describe('sim-client’s control-plane types', () => {
  it('match cluster-sim’s settings', () => {
    expectTypeOf<ClusterSimSettings>().toEqualTypeOf<Settings>();
  });

  it('match annotation-sim’s outbound delivery entries', () => {
    expectTypeOf<OutboundDelivery>().toEqualTypeOf<OutboundEntry>();
  });

  it('match annotation-sim’s delivery settings', () => {
    expectTypeOf<DeliverySettings>().toEqualTypeOf<AppDeliverySettings>();
  });
});
