import type * as annotation from '@sims/annotation-sim';
import type * as cluster from '@sims/cluster-sim';
import { describe, expectTypeOf, it } from 'vitest';
import type * as client from '../src/index';

// The client mirrors the simulators' control-plane views instead of depending on the apps (a client of
// a running simulator must not install one). These checks make a drift fail `typecheck`.
describe('the client’s copies of the simulators’ views', () => {
  it('match cluster-sim’s operation and node pool views', () => {
    expectTypeOf<client.ClusterOperationView>().toEqualTypeOf<cluster.OperationView>();
    expectTypeOf<client.NodePoolRolloutView>().toEqualTypeOf<cluster.PoolRolloutView>();
    expectTypeOf<client.NodePoolView>().toEqualTypeOf<cluster.PoolView>();
    expectTypeOf<client.ClusterView>().toEqualTypeOf<cluster.ClusterView>();
  });

  it('match annotation-sim’s webhook views', () => {
    expectTypeOf<client.WebhookDeliveryView>().toEqualTypeOf<annotation.DeliveryView>();
    expectTypeOf<client.WebhookView>().toEqualTypeOf<annotation.WebhookView>();
    expectTypeOf<client.RedeliverResult>().toEqualTypeOf<annotation.RedeliverResult>();
  });
});
