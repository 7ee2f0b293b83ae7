import { EventBus } from '../../src/bus/index.js';
import { describeTransportContract } from '../support/transportContract.js';

// One process, one bus: the bus is both sender and receiver.
describeTransportContract('in-process', () => {
  const bus = new EventBus();
  return Promise.resolve({ sender: bus, receiver: bus });
});
