import { auditIndex } from './audit/auditIndex.js'
import { documentHistoryModel } from './history/historyModel.js'
import type { ReadModel } from './readModel/readModel.js'

/** The read models every process that owns a data directory keeps following the log. */
export const READ_MODELS: readonly ReadModel[] = [auditIndex, documentHistoryModel]
