// Settings several controllers declare. A setting object is one flag however many controllers'
// tables name it: the cluster controller gives the sidecar images and Orchestrator's address to
// the pods, the backup controller the same images to its Jobs, the orchestrator controller calls
// the API. The flag names are the anchor's (bitpoke mysql-operator v0.6.3, pkg/options).
import { choiceSetting, httpUrlSetting, stringSetting } from '../../runtime/settings.ts';

/** This project's own sidecar: the default only for lines the anchor never had (8.4, MariaDB). */
const OWN_SIDECAR_IMAGE = 'mysql-operator-sidecar:latest';

/**
 * Orchestrator's HTTP API. One setting object, so a controller that also talks to Orchestrator
 * declares this same object and all get the one flag (docs/runtime.md).
 */
export const ORCHESTRATOR_URI_SETTING = httpUrlSetting({
  flag: 'orchestrator-uri',
  env: 'ORCHESTRATOR_URL',
  help: "Orchestrator's HTTP API (the pods' pre-stop hook asks it for a graceful master takeover)",
  default: 'http://mysql-operator.mysql-operator/api',
});

/**
 * Orchestrator's API credentials (AuthenticationMethod basic or multi): a directory with the files
 * `user` and `password`, the chart's Secret mounted. Shared like the URL: the orchestrator and
 * backup controllers call the API with them, the cluster controller gives them to the pods'
 * pre-stop hook. Empty: the API is called without credentials.
 */
export const ORCHESTRATOR_CREDENTIALS_SETTING = stringSetting({
  flag: 'orchestrator-credentials-dir',
  env: 'ORCHESTRATOR_CREDENTIALS_DIR',
  help: "directory with the files `user` and `password` of Orchestrator's API (a mounted Secret); empty: no credentials sent",
  default: '',
});

/** The sidecar image of each server line (shared/sidecar-images.ts chooses). */
export const SIDECAR_IMAGE_SETTINGS = {
  sidecarImage57: stringSetting({
    flag: 'sidecar-image',
    env: 'SIDECAR_IMAGE',
    help: 'sidecar image of MySQL 5.7 clusters',
    default: 'docker.io/bitpoke/mysql-operator-sidecar-5.7:v0.6.3',
    required: true,
  }),
  sidecarImage80: stringSetting({
    flag: 'sidecar-mysql8-image',
    env: 'SIDECAR_MYSQL8_IMAGE',
    help: 'sidecar image of MySQL 8.0 clusters',
    default: 'docker.io/bitpoke/mysql-operator-sidecar-8.0:v0.6.3',
    required: true,
  }),
  sidecarImage84: stringSetting({
    flag: 'sidecar-mysql84-image',
    env: 'SIDECAR_MYSQL84_IMAGE',
    help: "sidecar image of MySQL 8.4 clusters (the anchor had none: this project's)",
    default: OWN_SIDECAR_IMAGE,
    required: true,
  }),
  sidecarImageMariaDB: stringSetting({
    flag: 'sidecar-mariadb-image',
    env: 'SIDECAR_MARIADB_IMAGE',
    help: "sidecar image of MariaDB clusters (the anchor had none: this project's)",
    default: OWN_SIDECAR_IMAGE,
    required: true,
  }),
};

export type ImagePullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** The pods' and the backup Jobs' pull policy when the cluster sets none. */
export const IMAGE_PULL_POLICY_SETTING = choiceSetting(
  {
    flag: 'image-pull-policy',
    env: 'IMAGE_PULL_POLICY',
    help: 'pull policy of the pods when the cluster sets none',
    default: 'IfNotPresent',
  },
  ['Always', 'IfNotPresent', 'Never'],
);
