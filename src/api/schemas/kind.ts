// What one kind contributes to its CRD besides the schema of spec and status.
import type { JSONSchemaProps } from '../schema-types.ts';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  description: string;
  spec: JSONSchemaProps;
  status: JSONSchemaProps;
  /** Top-level `spec` is required for every kind that has required spec fields. */
  specRequired: boolean;
  printerColumns: PrinterColumn[];
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

export const READY_COLUMN: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  description: 'The status of the Ready condition',
  jsonPath: '.status.conditions[?(@.type == "Ready")].status',
};

export const AGE_COLUMN: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
