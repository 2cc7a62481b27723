/** Version of the wire protocol between hosts and the renderer; bump when a frame shape changes. */
export const CONTRACT_VERSION = 1;
