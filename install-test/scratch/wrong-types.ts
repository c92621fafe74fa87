// Must NOT compile: each line marked `expect-error` below is a type error, which proves the published
// declarations are real types, not `any`. The test compares tsc's error lines with the marked ones.
import { startClusterSim } from '@sims/cluster-sim';
import { createClusterSimClient } from '@sims/sim-client';
import { ClusterSimContainer } from '@sims/testcontainers';

const sim = await startClusterSim({ port: 0 });
createClusterSimClient({ baseUrl: 8085 }); // expect-error: a number where the client wants a string or URL
const url: number = sim.url; // expect-error: the started simulator's url is a string
new ClusterSimContainer().withClock('sometimes'); // expect-error: the clock is 'real' or 'manual'
console.log(url);
