/**
 * The label set the export and import format tests draw on: car (a select, a checkbox and a number
 * attribute), person, and the skeleton s1 of two points, as a seed's task labels.
 */
import type { SeedInput } from '../../src/domain/seed';

type SeedLabels = NonNullable<NonNullable<SeedInput['tasks']>[number]['labels']>;

export const FORMAT_LABELS: SeedLabels = [
  {
    name: 'car',
    color: '#ff0000',
    attributes: [
      {
        name: 'model',
        input_type: 'select',
        mutable: false,
        values: ['mazda', 'volvo'],
        default_value: 'mazda',
      },
      {
        name: 'parked',
        input_type: 'checkbox',
        mutable: true,
        values: ['false'],
        default_value: 'false',
      },
      {
        name: 'speed',
        input_type: 'number',
        mutable: true,
        values: ['0', '100', '1'],
        default_value: '5',
      },
    ],
  },
  { name: 'person', color: '#00ff00' },
  {
    name: 's1',
    type: 'skeleton',
    color: '#0000ff',
    sublabels: [
      { name: '1', type: 'points' },
      { name: '2', type: 'points' },
    ],
  },
];
